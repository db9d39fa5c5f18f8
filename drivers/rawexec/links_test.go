package rawexec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/internal/beneath/beneathtest"
	"github.com/drover-io/drover/internal/waitfor"
)

// A raw_exec task that runs as a user owns its task directory, and any
// task of the allocation can write alloc/logs: links left there must not
// lead the agent or the supervisor (both root) to write elsewhere.

func TestDriver_StateDirLinkedOut(t *testing.T) {
	host := beneathtest.HostDir(t)
	cfg := newShellTask(t, "echo hi")
	must.NoError(t, os.Symlink(host, filepath.Join(cfg.TaskDir, supervisorDirName)))

	_, err := newTestDriver(t).StartTask(cfg)
	must.ErrorIs(t, err, beneath.ErrSymlink)
	beneathtest.Unchanged(t, host)
}

func TestDriver_LogDirLinkedOut(t *testing.T) {
	host := beneathtest.HostDir(t)
	cfg := newShellTask(t, "echo hi")
	logs := filepath.Dir(cfg.StdoutPath)
	must.NoError(t, os.RemoveAll(logs))
	must.NoError(t, os.Symlink(host, logs))

	_, err := newTestDriver(t).StartTask(cfg)
	must.ErrorIs(t, err, beneath.ErrSymlink)
	must.ErrorContains(t, err, "stdout: create log directory")
	beneathtest.Unchanged(t, host)
}

// TestDriver_LogFileLinkedOut: a link in place of the task's log file
// gets replaced by the log file; the file it named is left alone.
func TestDriver_LogFileLinkedOut(t *testing.T) {
	host := beneathtest.HostDir(t)
	cfg := newShellTask(t, "echo hi")
	must.NoError(t, os.Symlink(filepath.Join(host, "sentinel"), cfg.StdoutPath+".0"))

	d := newTestDriver(t)
	startTask(t, d, cfg)
	must.Eq(t, 0, waitResult(t, d, cfg.ID).ExitCode)
	must.Eq(t, "hi\n", readLog(t, cfg.StdoutPath))
	beneathtest.Unchanged(t, host)
}

// TestDriver_StateDirSwappedWhileRunning: the task, which may write its
// task directory, swaps the supervisor's state directory for a link to a
// directory of the machine while it runs. The supervisor records the
// exit in the directory it was given, and the agent, finding a link
// where the state was, reports the task lost: nothing is written through
// the link.
func TestDriver_StateDirSwappedWhileRunning(t *testing.T) {
	host := beneathtest.HostDir(t)
	cfg := newShellTask(t, "")
	cfg.Config["args"] = []any{"-c", `mv .supervisor .gone && mkdir .supervisor && ln -s "$HOST" .supervisor/alloc1%2Fweb && exit 3`}
	cfg.Env["HOST"] = host

	d := newTestDriver(t)
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.ErrorIs(t, res.Err, beneath.ErrSymlink)
	beneathtest.Unchanged(t, host)
	// What the supervisor recorded is in the directory it was handed.
	st, err := readStatePath(filepath.Join(cfg.TaskDir, ".gone", "alloc1%2Fweb"))
	must.NoError(t, err)
	must.Eq(t, 3, st.ExitCode)
}

// TestDriver_RecoverAfterStateDirSwapped: while no agent watches it, the
// task swaps its state directory for a link. The next agent reads
// nothing through the link, and kills the task rather than leave it
// running unsupervised.
func TestDriver_RecoverAfterStateDirSwapped(t *testing.T) {
	host := beneathtest.HostDir(t)
	cfg := newShellTask(t, "")
	cfg.Config["args"] = []any{"-c", `while [ ! -e go ]; do sleep 0.05; done; mv .supervisor .gone && mkdir .supervisor && ln -s "$HOST" .supervisor/alloc1%2Fweb && touch swapped && sleep 100`}
	cfg.Env["HOST"] = host

	first := newTestDriver(t)
	h := startTask(t, first, cfg)
	first.Shutdown()
	must.NoError(t, os.WriteFile(filepath.Join(cfg.TaskDir, "go"), nil, 0o644))
	waitfor.True(t, "the task to swap its state directory", func() bool {
		_, err := os.Stat(filepath.Join(cfg.TaskDir, "swapped"))
		return err == nil
	}, wait.Timeout(exitTimeout))

	var ds driverState
	must.NoError(t, h.GetDriverState(&ds))
	err := newTestDriver(t).RecoverTask(h.Copy())
	must.ErrorIs(t, err, beneath.ErrSymlink)
	beneathtest.Unchanged(t, host)
	waitfor.True(t, "the task and its supervisor gone", func() bool {
		return len(groupMembers(ds.PGID)) == 0 && !isSupervisor(ds.SupervisorPID, ds.StateDir)
	}, wait.Timeout(exitTimeout))
}
