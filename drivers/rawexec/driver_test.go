package rawexec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
)

func TestDriver_Fingerprint(t *testing.T) {
	enabled := New(nil, Config{Enabled: true}).Fingerprint(context.Background())
	must.True(t, enabled.Detected)
	must.True(t, enabled.Healthy)
	must.Eq(t, "1", enabled.Attributes["driver.raw_exec"])

	disabled := New(nil, Config{}).Fingerprint(context.Background())
	must.True(t, disabled.Detected)
	must.False(t, disabled.Healthy)
	must.Eq(t, "disabled", disabled.HealthDescription)
	must.MapNotContainsKey(t, disabled.Attributes, "driver.raw_exec")
}

func TestDriver_DisabledRefusesToStart(t *testing.T) {
	cfg := testDriverConfig()
	cfg.Enabled = false
	d := New(nil, cfg)
	task := newShellTask(t, "exit 0")
	_, err := d.StartTask(task)
	must.ErrorContains(t, err, "raw_exec driver is disabled")
	_, err = os.Stat(filepath.Join(task.TaskDir, supervisorDirName))
	must.ErrorIs(t, err, os.ErrNotExist)
}

func TestDriver_ExitCodes(t *testing.T) {
	for _, code := range []int{0, 3} {
		t.Run(fmt.Sprintf("exit %d", code), func(t *testing.T) {
			d := newTestDriver(t)
			cfg := newShellTask(t, fmt.Sprintf("exit %d", code))
			h := startTask(t, d, cfg)
			must.Eq(t, drivers.TaskStateRunning, h.State)
			must.Eq(t, DriverName, h.Driver)

			before := time.Now()
			res := waitResult(t, d, cfg.ID)
			must.Eq(t, drivers.ExitResult{ExitCode: code}, withoutExitTime(t, res))
			must.False(t, res.ExitedAt.After(time.Now()))
			must.True(t, res.ExitedAt.After(before.Add(-time.Minute)))
			must.Eq(t, code == 0, res.Successful())

			st, err := d.InspectTask(cfg.ID)
			must.NoError(t, err)
			must.Eq(t, drivers.TaskStateExited, st.State)
			must.False(t, st.CompletedAt.Before(st.StartedAt))
		})
	}
}

func TestDriver_LogsEnvAndWorkingDirectory(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, `echo "out $GREETING"; echo err >&2; pwd; echo "agent env: ${`+supervisorTestEnv+`:-unset}"`)
	startTask(t, d, cfg)
	must.Eq(t, 0, waitResult(t, d, cfg.ID).ExitCode)

	must.Eq(t, "out hi\n"+cfg.TaskDir+"\nagent env: unset\n", readLog(t, cfg.StdoutPath))
	must.Eq(t, "err\n", readLog(t, cfg.StderrPath))
}

func TestDriver_CommandLookup(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "")
	script := filepath.Join(cfg.TaskDir, "local", "hello.sh")
	must.NoError(t, os.MkdirAll(filepath.Dir(script), 0o755))
	must.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho \"hello $1\"\n"), 0o755))
	cfg.Config = map[string]any{"command": "local/hello.sh", "args": []string{"world"}, "work_dir": "/"}

	startTask(t, d, cfg)
	must.Eq(t, 0, waitResult(t, d, cfg.ID).ExitCode)
	must.Eq(t, "hello world\n", readLog(t, cfg.StdoutPath))

	// A bare name is looked up in the task's PATH.
	cfg2 := newShellTask(t, "")
	cfg2.ID = "alloc2/web"
	cfg2.Env["PATH"] = filepath.Dir(script)
	cfg2.Config = map[string]any{"command": "hello.sh", "args": []any{"path"}}
	startTask(t, d, cfg2)
	must.Eq(t, 0, waitResult(t, d, cfg2.ID).ExitCode)
	must.Eq(t, "hello path\n", readLog(t, cfg2.StdoutPath))
}

func TestDriver_InvalidConfig(t *testing.T) {
	plainFile := filepath.Join(t.TempDir(), "data.txt")
	must.NoError(t, os.WriteFile(plainFile, []byte("x"), 0o644))
	cases := []struct {
		name string
		conf map[string]any
		want string
	}{
		{"missing command", map[string]any{"args": []string{"x"}}, `config key "command" is required`},
		{"empty command", map[string]any{"command": " "}, `config key "command": must not be empty`},
		{"command not a string", map[string]any{"command": 3}, `config key "command": want a string`},
		{"args not strings", map[string]any{"command": "/bin/sh", "args": []any{"-c", 1}}, `config key "args": element 1`},
		{"unknown key", map[string]any{"command": "/bin/sh", "image": "x"}, `unsupported config key "image"`},
		{"relative work_dir", map[string]any{"command": "/bin/sh", "work_dir": "tmp"}, `config key "work_dir": "tmp" is not an absolute path`},
		{"missing executable", map[string]any{"command": "/no/such/binary"}, `config key "command": executable /no/such/binary: no such file`},
		{"not in PATH", map[string]any{"command": "no-such-binary-here"}, `executable "no-such-binary-here" not found in PATH`},
		{"not executable", map[string]any{"command": plainFile}, plainFile + " is not an executable file"},
	}
	d := newTestDriver(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := newShellTask(t, "")
			cfg.Config = tc.conf
			_, err := d.StartTask(cfg)
			must.ErrorContains(t, err, `task "web"`)
			must.ErrorContains(t, err, tc.want)
			must.False(t, drivers.IsRecoverable(err))
		})
	}
}

func TestDriver_StartFailureReported(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "exit 0")
	notADir := filepath.Join(cfg.AllocRoot(), "file")
	must.NoError(t, os.WriteFile(notADir, nil, 0o644))
	cfg.StdoutPath = filepath.Join(notADir, "logs", "web.stdout")
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, "stdout: create log directory")
	must.ErrorContains(t, err, "not a directory")
	must.True(t, drivers.IsRecoverable(err))
	_, err = d.InspectTask(cfg.ID)
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)
	// Nothing is left behind for the failed start.
	_, err = os.Stat(filepath.Join(cfg.TaskDir, supervisorDirName, "alloc1%2Fweb"))
	must.ErrorIs(t, err, os.ErrNotExist)
}

func TestDriver_DuplicateID(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "sleep 30")
	startTask(t, d, cfg)
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, `task "alloc1/web" already exists`)

	// A new agent that did not recover the task must not start it twice.
	_, err = newTestDriver(t).StartTask(cfg)
	must.ErrorContains(t, err, "task is already running under supervisor pid")
	must.NoError(t, d.DestroyTask(cfg.ID, true))
}

func TestDriver_CreatesLogDirectory(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "echo hi")
	cfg.StdoutPath = filepath.Join(cfg.AllocRoot(), "new", "logs", "web.stdout")
	startTask(t, d, cfg)
	must.Eq(t, 0, waitResult(t, d, cfg.ID).ExitCode)
	must.Eq(t, "hi\n", readLog(t, cfg.StdoutPath))
}

// The task's script exits 4 only once both of its children are gone, and
// they are only killed by SIGUSR1 if it reaches them: the signal must go to
// the whole group, not just the task's main process.
func TestDriver_SignalReachesEveryProcessInGroup(t *testing.T) {
	d := newTestDriver(t)
	// The trap is set before the children exist, and the test signals only
	// once both children have exec'd sleep: a signal that arrived earlier
	// would kill the shell itself (exit 138) or hit a child still running
	// the shell's trap.
	cfg := newShellTask(t, `
trap 'echo got USR1' USR1
sleep 1000 &
sleep 1000 &
while true; do wait; [ $? -le 128 ] && break; done
exit 4`)
	h := startTask(t, d, cfg)
	ds := taskDriverState(t, h)
	waitForGroupCommand(t, ds.PGID, "sleep", 2)

	must.NoError(t, d.SignalTask(cfg.ID, "SIGUSR1"))
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 4, res.ExitCode)
	must.Eq(t, "got USR1\n", readLog(t, cfg.StdoutPath))
	must.SliceEmpty(t, groupMembers(ds.PGID))

	must.ErrorContains(t, d.SignalTask(cfg.ID, "SIGUSR1"), "task has exited")
	must.ErrorIs(t, d.SignalTask("nope", "SIGUSR1"), drivers.ErrTaskNotFound)
}

func TestDriver_SignalTask_UnknownSignal(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "sleep 30")
	startTask(t, d, cfg)
	must.ErrorContains(t, d.SignalTask(cfg.ID, "SIGBOGUS"), `unknown signal "SIGBOGUS"`)
	must.ErrorContains(t, d.StopTask(cfg.ID, time.Second, "SIGBOGUS"), `unknown signal "SIGBOGUS"`)
	must.NoError(t, d.DestroyTask(cfg.ID, true))
}

func TestDriver_StopTask_LeavesNoProcessBehind(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "sleep 1000 & sleep 1000 & wait")
	h := startTask(t, d, cfg)
	ds := taskDriverState(t, h)
	waitForGroupSize(t, ds.PGID, 3)

	must.NoError(t, d.StopTask(cfg.ID, 30*time.Second, ""))
	must.SliceEmpty(t, groupMembers(ds.PGID))
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, int(syscall.SIGINT), res.Signal)
	must.Eq(t, 130, res.ExitCode)
}

func TestDriver_StopTask_EscalatesToSIGKILL(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, `trap "" INT; sleep 30`)
	h := startTask(t, d, cfg)
	ds := taskDriverState(t, h)
	// Once sleep runs, the trap is in place (and sleep inherited it).
	waitForGroupSize(t, ds.PGID, 2)

	start := time.Now()
	must.NoError(t, d.StopTask(cfg.ID, time.Second, "SIGINT"))
	must.GreaterEq(t, time.Second, time.Since(start), must.Sprint("the task ignores SIGINT, so only SIGKILL after the timeout ends it"))
	must.SliceEmpty(t, groupMembers(ds.PGID))

	res := waitResult(t, d, cfg.ID)
	must.Eq(t, drivers.ExitResult{ExitCode: 137, Signal: 9}, withoutExitTime(t, res))
}

func TestDriver_StopTask_Exited(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "exit 0")
	startTask(t, d, cfg)
	waitResult(t, d, cfg.ID)
	must.NoError(t, d.StopTask(cfg.ID, time.Second, ""))
	must.ErrorIs(t, d.StopTask("nope", time.Second, ""), drivers.ErrTaskNotFound)
}

func TestDriver_WaitTask_ContextCancel(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "sleep 30")
	startTask(t, d, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := d.WaitTask(ctx, cfg.ID)
	must.NoError(t, err)
	cancel()
	res, ok := <-ch
	must.False(t, ok)
	must.Nil(t, res)

	st, err := d.InspectTask(cfg.ID)
	must.NoError(t, err)
	must.Eq(t, drivers.TaskStateRunning, st.State)
	must.NoError(t, d.DestroyTask(cfg.ID, true))
}

func TestDriver_DestroyTask(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "sleep 1000")
	h := startTask(t, d, cfg)
	ds := taskDriverState(t, h)

	must.ErrorContains(t, d.DestroyTask(cfg.ID, false), "task is still running")
	must.NoError(t, d.DestroyTask(cfg.ID, true))
	must.SliceEmpty(t, groupMembers(ds.PGID))
	_, err := os.Stat(ds.StateDir)
	must.ErrorIs(t, err, os.ErrNotExist)
	_, err = d.InspectTask(cfg.ID)
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)
	must.ErrorIs(t, d.DestroyTask(cfg.ID, true), drivers.ErrTaskNotFound)

	// The same ID can run again once destroyed.
	cfg.Config = map[string]any{"command": "/bin/sh", "args": []string{"-c", "exit 5"}}
	startTask(t, d, cfg)
	must.Eq(t, 5, waitResult(t, d, cfg.ID).ExitCode)
	must.NoError(t, d.DestroyTask(cfg.ID, false))
}

func TestDriver_InspectTask(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "sleep 1000")
	h := startTask(t, d, cfg)
	ds := taskDriverState(t, h)

	st, err := d.InspectTask(cfg.ID)
	must.NoError(t, err)
	must.Eq(t, cfg.ID, st.ID)
	must.Eq(t, "web", st.Name)
	must.Eq(t, drivers.TaskStateRunning, st.State)
	must.Nil(t, st.ExitResult)
	must.Eq(t, h.StartedAt, st.StartedAt)
	must.Eq(t, ds.PID, ds.PGID)
	must.True(t, isSupervisor(ds.SupervisorPID, ds.StateDir))
	must.MapContainsKeys(t, st.DriverAttributes, []string{"pid", "pgid", "supervisor_pid"})
	must.NoError(t, d.DestroyTask(cfg.ID, true))
}
