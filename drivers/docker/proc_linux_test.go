package docker

import (
	"os"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/dockertest"
)

// TestDriver_HoldsTheContainersProcess signals the container's first
// process straight through its pidfd and sees it exit before the engine
// reports it.
func TestDriver_HoldsTheContainersProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "trap", "SIGTERM", "5", "print", "ready", "sleep", "100s")
	startTask(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready\n")
	tk, err := d.tasks.Get(cfg.ID)
	must.NoError(t, err)
	tk.mu.Lock()
	held := tk.proc != nil
	tk.mu.Unlock()
	must.True(t, held, must.Sprint("the driver holds no pidfd of the container's process"))

	sent := time.Now()
	must.NoError(t, d.kill(tk, 15))
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 5, res.ExitCode)
	_, _, finished := engineState(t, e, containerName(cfg))
	must.True(t, !res.ExitedAt.Before(sent) && !res.ExitedAt.After(finished),
		must.Sprintf("exited at %s: want between the signal (%s) and the engine's FinishedAt (%s)", res.ExitedAt, sent, finished))
}

func TestOpenProc_RefusesAnotherProcess(t *testing.T) {
	_, err := openProc(os.Getpid(), "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	must.ErrorContains(t, err, "is not the container's")
	_, err = openProc(0, "x")
	must.Error(t, err)
}
