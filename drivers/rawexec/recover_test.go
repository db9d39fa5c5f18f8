package rawexec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/waitfor"
)

// gatedScript prints before, waits until the file "proceed" appears in its
// working directory (the task directory), prints after and exits 7.
const gatedScript = `echo before; while [ ! -e proceed ]; do sleep 0.05; done; echo after; exit 7`

func proceed(t *testing.T, cfg *drivers.TaskConfig) {
	t.Helper()
	must.NoError(t, os.WriteFile(filepath.Join(cfg.TaskDir, "proceed"), nil, 0o644))
}

// waitForRecordedExit waits until the supervisor recorded the task's exit
// and went away.
func waitForRecordedExit(t *testing.T, ds driverState) *taskState {
	t.Helper()
	var st *taskState
	waitfor.True(t, "the supervisor to record the exit and go", func() bool {
		var err error
		st, err = readStatePath(ds.StateDir)
		return err == nil && st.State == stateExited && !isSupervisor(ds.SupervisorPID, ds.StateDir)
	}, wait.Timeout(exitTimeout))
	return st
}

func parentPID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	must.NoError(t, err)
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ppid, err := strconv.Atoi(fields[1])
	must.NoError(t, err)
	return ppid
}

func TestRecover_RunningTaskAfterAgentKilled(t *testing.T) {
	cfg := newShellTask(t, gatedScript)
	h := startInThrowawayAgent(t, cfg)
	ds := taskDriverState(t, h)

	// The agent is dead; its task and supervisor are not.
	must.True(t, isSupervisor(ds.SupervisorPID, ds.StateDir))
	// sh and its sleep: sh runs a new sleep every 50 ms, so on a loaded
	// machine a look may fall between two of them.
	waitfor.True(t, "sh and its sleep in the task group", func() bool {
		return len(groupMembers(ds.PGID)) == 2
	})
	must.NotEq(t, os.Getpid(), parentPID(t, ds.SupervisorPID))

	d := newTestDriver(t)
	must.NoError(t, d.RecoverTask(h))
	st, err := d.InspectTask(cfg.ID)
	must.NoError(t, err)
	must.Eq(t, drivers.TaskStateRunning, st.State)
	must.Eq(t, h.StartedAt.UnixNano(), st.StartedAt.UnixNano())

	// Output written after the restart lands in the same log file.
	proceed(t, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, drivers.ExitResult{ExitCode: 7}, withoutExitTime(t, res))
	must.Eq(t, "before\nafter\n", readLog(t, cfg.StdoutPath))
	must.SliceEmpty(t, groupMembers(ds.PGID))
}

func TestRecover_TaskExitedWhileAgentDown(t *testing.T) {
	cfg := newShellTask(t, gatedScript)
	h := startInThrowawayAgent(t, cfg)
	ds := taskDriverState(t, h)

	proceed(t, cfg)
	recorded := waitForRecordedExit(t, ds)

	d := newTestDriver(t)
	must.NoError(t, d.RecoverTask(h))
	// The result says when the task exited, not when this driver learnt
	// of it.
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, drivers.ExitResult{ExitCode: 7}, withoutExitTime(t, res))
	must.Eq(t, recorded.FinishedAt.UnixNano(), res.ExitedAt.UnixNano())
	st, err := d.InspectTask(cfg.ID)
	must.NoError(t, err)
	must.Eq(t, drivers.TaskStateExited, st.State)
	must.Eq(t, recorded.FinishedAt.UnixNano(), st.CompletedAt.UnixNano())
	must.Eq(t, "before\nafter\n", readLog(t, cfg.StdoutPath))
}

func TestRecover_NewDriverInstance(t *testing.T) {
	d1 := newTestDriver(t)
	cfg := newShellTask(t, gatedScript)
	h := persistHandle(t, startTask(t, d1, cfg))
	d1.Shutdown()
	_, err := d1.InspectTask(cfg.ID)
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)

	d2 := newTestDriver(t)
	must.NoError(t, d2.RecoverTask(h))
	must.NoError(t, d2.RecoverTask(h)) // re-attaching twice is harmless
	proceed(t, cfg)
	must.Eq(t, 7, waitResult(t, d2, cfg.ID).ExitCode)
	must.Eq(t, "before\nafter\n", readLog(t, cfg.StdoutPath))
}

func TestRecover_NewDriverInstance_ExitedMeanwhile(t *testing.T) {
	d1 := newTestDriver(t)
	cfg := newShellTask(t, "sleep 1; exit 7")
	h := persistHandle(t, startTask(t, d1, cfg))
	d1.Shutdown()
	waitForRecordedExit(t, taskDriverState(t, h))

	d2 := newTestDriver(t)
	must.NoError(t, d2.RecoverTask(h))
	must.Eq(t, 7, waitResult(t, d2, cfg.ID).ExitCode)
}

// A supervisor killed before it could record the exit leaves the task's
// fate unknown: the result says so instead of inventing an exit code.
func TestRecover_SupervisorDiedWithoutRecording(t *testing.T) {
	d1 := newTestDriver(t)
	cfg := newShellTask(t, "exec sleep 1000")
	h := startTask(t, d1, cfg)
	ds := taskDriverState(t, h)
	waitForGroupSize(t, ds.PGID, 1)

	must.NoError(t, syscall.Kill(ds.SupervisorPID, syscall.SIGKILL))
	res := waitResult(t, d1, cfg.ID)
	must.ErrorIs(t, res.Err, errTaskLost)
	must.EqError(t, res.Err, "task lost: supervisor exited without recording an exit status")
	must.False(t, res.Successful())

	d2 := newTestDriver(t)
	must.NoError(t, d2.RecoverTask(persistHandle(t, h)))
	must.ErrorIs(t, waitResult(t, d2, cfg.ID).Err, errTaskLost)

	must.NoError(t, syscall.Kill(-ds.PGID, syscall.SIGKILL))
}

func TestRecover_InvalidHandles(t *testing.T) {
	d := newTestDriver(t)
	must.ErrorContains(t, d.RecoverTask(nil), "handle with a task config and ID is required")

	cfg := newShellTask(t, "exit 0")
	err := d.RecoverTask(&drivers.TaskHandle{Driver: DriverName, Config: cfg})
	must.ErrorContains(t, err, "no driver state")

	err = d.RecoverTask(&drivers.TaskHandle{Driver: "docker", Config: cfg})
	must.ErrorContains(t, err, `handle is for driver "docker"`)

	h := &drivers.TaskHandle{Driver: DriverName, Config: cfg}
	must.NoError(t, h.SetDriverState(driverState{StateDir: filepath.Join(t.TempDir(), "gone"), SupervisorPID: 1, PGID: 1}))
	must.ErrorContains(t, d.RecoverTask(h), "read task state")

	must.NoError(t, h.SetDriverState(driverState{}))
	must.ErrorContains(t, d.RecoverTask(h), "lacks the supervisor's state directory")
}

func TestSupervisor_SurvivesHangupAndForwardsTermination(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "exec sleep 1000")
	h := startTask(t, d, cfg)
	ds := taskDriverState(t, h)
	waitForGroupSize(t, ds.PGID, 1)

	must.NoError(t, syscall.Kill(ds.SupervisorPID, syscall.SIGHUP))
	// Once the hangup is no longer pending it was delivered: had it not
	// been handled, it would have ended the supervisor.
	waitfor.True(t, "the supervisor to take the hangup", func() bool {
		return !signalPending(ds.SupervisorPID, syscall.SIGHUP)
	}, wait.Timeout(exitTimeout))
	must.True(t, isSupervisor(ds.SupervisorPID, ds.StateDir))
	st, err := d.InspectTask(cfg.ID)
	must.NoError(t, err)
	must.Eq(t, drivers.TaskStateRunning, st.State)

	must.NoError(t, syscall.Kill(ds.SupervisorPID, syscall.SIGTERM))
	must.Eq(t, drivers.ExitResult{ExitCode: 143, Signal: 15}, withoutExitTime(t, waitResult(t, d, cfg.ID)))
}
