package rawexec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
)

// TestExecTask runs commands as the task runs: in its directory, with its
// environment; a command's failure is its exit code, and one past its
// timeout is killed with what it started.
func TestExecTask(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "sleep 60")
	h := startTask(t, d, cfg)
	defer d.StopTask(h.Config.ID, time.Second, "SIGKILL")

	res, err := d.ExecTask(t.Context(), cfg.ID, []string{"/bin/sh", "-c", `echo "$GREETING from $(pwd)"`}, 10*time.Second)
	must.NoError(t, err)
	must.Eq(t, 0, res.ExitCode)
	must.Eq(t, "hi from "+cfg.TaskDir+"\n", string(res.Output))

	res, err = d.ExecTask(t.Context(), cfg.ID, []string{"sh", "-c", "echo no >&2; exit 4"}, 10*time.Second)
	must.NoError(t, err)
	must.Eq(t, 4, res.ExitCode)
	must.Eq(t, "no\n", string(res.Output))

	start := time.Now()
	_, err = d.ExecTask(t.Context(), cfg.ID, []string{"/bin/sh", "-c", "sleep 60 & sleep 60"}, 200*time.Millisecond)
	must.True(t, errors.Is(err, context.DeadlineExceeded), must.Sprint(err))
	must.Less(t, 30*time.Second, time.Since(start), must.Sprint("the timeout kills the command and its children"))

	res, err = d.ExecTask(t.Context(), cfg.ID, []string{"/bin/sh", "-c", "head -c 100000 /dev/zero"}, 10*time.Second)
	must.NoError(t, err)
	must.Eq(t, drivers.MaxExecOutput, len(res.Output))

	_, err = d.ExecTask(t.Context(), "nope", []string{"/bin/true"}, time.Second)
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)
	_, err = d.ExecTask(t.Context(), cfg.ID, []string{"no-such-program-here"}, time.Second)
	must.True(t, err != nil && strings.Contains(err.Error(), "not found"), must.Sprint(err))
}
