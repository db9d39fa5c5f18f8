package docker

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/internal/waitfor"
)

// engineState reads the container's state from the engine.
func engineState(t *testing.T, e *env, name string) (running bool, exitCode int, finished time.Time) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	insp, err := e.engine.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
	must.NoError(t, err)
	s := insp.Container.State
	return s.Running, s.ExitCode, parseEngineTime(s.FinishedAt)
}

// engineLogHas reports whether the engine holds want in the container's
// output.
func engineLogHas(t *testing.T, e *env, name, want string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rc, err := e.engine.ContainerLogs(ctx, name, client.ContainerLogsOptions{ShowStdout: true})
	must.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	must.NoError(t, err)
	return strings.Contains(string(b), want)
}

// TestDriver_RecoverRunning detaches from a running container, as an
// agent stopping does, and re-attaches with a new driver: the same
// container, whose output written meanwhile reaches the log once.
func TestDriver_RecoverRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	first := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "print", "before", "sleep", "1s", "print", "while detached", "sleep", "100s")
	h := startTask(t, first, cfg)
	waitForLog(t, cfg.StdoutPath, "before\n")
	first.Shutdown()

	name := containerName(cfg)
	waitfor.True(t, "output written while detached", func() bool { return engineLogHas(t, e, name, "while detached") })
	must.Eq(t, "before\n", readLog(t, cfg.StdoutPath))

	second := newTestDriver(t, nil)
	must.NoError(t, second.RecoverTask(h.Copy()))
	waitForLog(t, cfg.StdoutPath, "while detached\n")
	must.Eq(t, "before\nwhile detached\n", readLog(t, cfg.StdoutPath))
	st, err := second.InspectTask(cfg.ID)
	must.NoError(t, err)
	must.Eq(t, drivers.TaskStateRunning, st.State)

	must.NoError(t, second.StopTask(cfg.ID, time.Second, "SIGKILL"))
	must.Eq(t, 137, waitResult(t, second, cfg.ID).ExitCode)
	running, _, _ := engineState(t, e, name)
	must.False(t, running)
}

// TestDriver_RecoverExited re-attaches to a container that exited while
// no driver watched it: its real exit code and finish time, and its last
// output in the log.
func TestDriver_RecoverExited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	first := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "print", "before", "sleep", "1s", "print", "last words", "exit", "7")
	h := startTask(t, first, cfg)
	waitForLog(t, cfg.StdoutPath, "before\n")
	first.Shutdown()

	name := containerName(cfg)
	waitfor.True(t, "container exited", func() bool {
		running, _, _ := engineState(t, e, name)
		return !running
	})
	_, _, finished := engineState(t, e, name)

	second := newTestDriver(t, nil)
	must.NoError(t, second.RecoverTask(h.Copy()))
	res := waitResult(t, second, cfg.ID)
	must.Eq(t, 7, res.ExitCode)
	must.Eq(t, finished, res.ExitedAt)
	must.Eq(t, "before\nlast words\n", readLog(t, cfg.StdoutPath))
}

func TestDriver_RecoverGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	h := startTask(t, d, cfg)
	d.Shutdown()
	removeTaskContainer(t, cfg)

	err := newTestDriver(t, nil).RecoverTask(h.Copy())
	must.ErrorContains(t, err, "no longer exists")
	h.Driver = "raw_exec"
	must.ErrorContains(t, newTestDriver(t, nil).RecoverTask(h), `handle is for driver "raw_exec"`)
}
