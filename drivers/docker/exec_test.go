package docker

import (
	"context"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/dockertest"
)

// TestDriver_ExecTask: a command runs in the task's container through the
// engine, with the container's environment; its exit code and output
// (stdout and stderr) come back; a command that outlasts its timeout
// fails the call; a task the driver does not know is an error.
func TestDriver_ExecTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "print", "ready", "sleep", "100s")
	startTask(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready\n")
	ctx := context.Background()

	res, err := d.ExecTask(ctx, cfg.ID, []string{"/testapp", "env", "eprint", "to-stderr", "exit", "3"}, 30*time.Second)
	must.NoError(t, err)
	must.Eq(t, 3, res.ExitCode)
	must.StrContains(t, string(res.Output), "GREETING=hi")
	must.StrContains(t, string(res.Output), "to-stderr")

	res, err = d.ExecTask(ctx, cfg.ID, []string{"/testapp", "print", "ok"}, 30*time.Second)
	must.NoError(t, err)
	must.Eq(t, &drivers.ExecResult{ExitCode: 0, Output: []byte("ok\n")}, res)

	start := time.Now()
	_, err = d.ExecTask(ctx, cfg.ID, []string{"/testapp", "sleep", "100s"}, time.Second)
	must.ErrorIs(t, err, context.DeadlineExceeded)
	must.Less(t, 30*time.Second, time.Since(start))

	_, err = d.ExecTask(ctx, "no-such-task", []string{"/testapp"}, time.Second)
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)
	_, err = d.ExecTask(ctx, cfg.ID, nil, time.Second)
	must.ErrorContains(t, err, "no command")

	must.NoError(t, d.StopTask(cfg.ID, 5*time.Second, "SIGKILL"))
	waitResult(t, d, cfg.ID)
}
