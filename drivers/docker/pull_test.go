package docker

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/internal/waitfor"
)

// slowImage is an image with a 4 MiB layer served at 64 KiB/s: its pull
// takes about a minute, far longer than any test waits for it.
func slowImage(t *testing.T) (*env, *dockertest.Throttle) {
	t.Helper()
	e := newEnv(t, dockertest.ImageOptions{FillerBytes: 4 << 20})
	return e, e.reg.Throttle(e.image.FillerDigest, 64<<10)
}

// startAsync starts the task in the background; the result arrives on
// the returned channel.
func startAsync(t *testing.T, d *Driver, cfg *drivers.TaskConfig) <-chan error {
	t.Helper()
	t.Cleanup(func() { removeTaskContainer(t, cfg) })
	errc := make(chan error, 1)
	go func() {
		_, err := d.StartTask(cfg)
		errc <- err
	}()
	return errc
}

// TestDriver_StopDuringPull is the seed's case at the driver: a stop
// while the image is still being pulled abandons the pull, the engine
// drops its download (the registry sees the connection close before the
// layer is sent), and the task never starts.
func TestDriver_StopDuringPull(t *testing.T) {
	t.Parallel()
	e, slow := slowImage(t)
	d := newTestDriver(t, nil)
	cfg, evs := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	errc := startAsync(t, d, cfg)
	<-slow.Started()

	must.NoError(t, d.StopTask(cfg.ID, time.Second, "SIGTERM"))
	select {
	case err := <-errc:
		must.ErrorIs(t, err, ErrStoppedWhileStarting)
	case <-time.After(exitTimeout):
		t.Fatal("StartTask did not return after the stop")
	}
	select {
	case <-slow.Closed():
	case <-time.After(exitTimeout):
		t.Fatal("the registry never saw the download cut off")
	}
	sent, size, complete := slow.Progress()
	must.False(t, complete)
	must.Less(t, size, sent)
	must.False(t, containerExists(t, e.engine, containerName(cfg)))
	must.Eq(t, "Downloading image "+e.image.Ref, evs.all()[0].Message)
	_, err := d.InspectTask(cfg.ID)
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)
}

// TestDriver_AbortStart abandons a pull for the agent's stop.
func TestDriver_AbortStart(t *testing.T) {
	t.Parallel()
	e, slow := slowImage(t)
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	errc := startAsync(t, d, cfg)
	<-slow.Started()
	d.AbortStart(cfg.ID)
	select {
	case err := <-errc:
		must.ErrorIs(t, err, errStartAborted)
	case <-time.After(exitTimeout):
		t.Fatal("StartTask did not return after AbortStart")
	}
	<-slow.Closed()
}

// TestDriver_SharedPull starts two tasks of one image together: one pull
// serves both, and it goes on while one of them still waits.
func TestDriver_SharedPull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{FillerBytes: 1 << 20})
	// 1 MiB at 1 MiB/s: slow enough for both to wait on the one pull.
	slow := e.reg.Throttle(e.image.FillerDigest, 1<<20)
	d := newTestDriver(t, nil)
	first, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	second, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	third, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	errs := []<-chan error{startAsync(t, d, first), startAsync(t, d, second), startAsync(t, d, third)}
	<-slow.Started()
	// The third leaves; the pull goes on for the other two.
	must.NoError(t, d.StopTask(third.ID, time.Second, "SIGTERM"))
	for i, errc := range errs {
		select {
		case err := <-errc:
			if i == 2 {
				must.ErrorIs(t, err, ErrStoppedWhileStarting)
			} else {
				must.NoError(t, err)
			}
		case <-time.After(exitTimeout):
			t.Fatalf("task %d did not start", i)
		}
	}
	must.Eq(t, 1, slow.Downloads())
	_, _, complete := slow.Progress()
	must.True(t, complete)
}

// TestDriver_PullProgress reports the pull as task events: one when it
// begins, then its progress at the configured interval, with the bytes
// done and to do.
func TestDriver_PullProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{FillerBytes: 1 << 20})
	e.reg.Throttle(e.image.FillerDigest, 512<<10)
	d := newTestDriver(t, func(c *PluginConfig) { c.progressInterval = 200 * time.Millisecond })
	cfg, evs := newTaskConfig(t, e.image.Ref, "exit", "0")
	startTask(t, d, cfg)

	all := evs.all()
	must.Eq(t, "Downloading image "+e.image.Ref, all[0].Message)
	must.Eq(t, e.image.Ref, all[0].Details["image"])
	// About 2 s of pull at one event per 200 ms; fewer on a busy machine,
	// never one per chunk.
	must.Between(t, 3, len(all), 30)
	last := all[len(all)-1]
	must.StrContains(t, last.Message, "Downloading image "+e.image.Ref+": ")
	must.StrContains(t, last.Message, " layers done")
	done, err := strconv.ParseInt(last.Details["bytes_done"], 10, 64)
	must.NoError(t, err)
	total, err := strconv.ParseInt(last.Details["bytes_total"], 10, 64)
	must.NoError(t, err)
	must.Positive(t, done)
	must.GreaterEq(t, done, total)
	must.Eq(t, "2", last.Details["layers_total"])
}

// TestDriver_PresentImageNotPulled starts from an image already present
// without a pull, unless force_pull says so.
func TestDriver_PresentImageNotPulled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	first, evs := newTaskConfig(t, e.image.Ref, "exit", "0")
	startTask(t, d, first)
	must.SliceNotEmpty(t, evs.all())

	again, evs := newTaskConfig(t, e.image.Ref, "exit", "0")
	startTask(t, d, again)
	must.SliceEmpty(t, evs.all())

	forced, evs := newTaskConfig(t, e.image.Ref, "exit", "0")
	forced.Config["force_pull"] = true
	startTask(t, d, forced)
	must.SliceNotEmpty(t, evs.all())
}

// TestDriver_PullFailure fails the task with the engine's reason, for
// good: a missing image will not appear by retrying.
func TestDriver_PullFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	missing := e.reg.Host + "/app:no-such-tag"
	cfg, _ := newTaskConfig(t, missing, "exit", "0")
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, "pull image "+missing)
	must.ErrorContains(t, err, "not found")
	must.False(t, drivers.IsRecoverable(err))
}

func TestDriver_ImagePullTimeout(t *testing.T) {
	t.Parallel()
	e, _ := slowImage(t)
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "exit", "0")
	cfg.Config["image_pull_timeout"] = "500ms"
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, `not done within 500ms (config key "image_pull_timeout")`)
	must.True(t, drivers.IsRecoverable(err))
}

func TestDriver_PullActivityTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{FillerBytes: 1 << 20})
	// One byte every 50 ms: the engine reports no progress for long.
	e.reg.Throttle(e.image.FillerDigest, 20)
	d := newTestDriver(t, func(c *PluginConfig) { c.PullActivityTimeout = time.Second })
	cfg, _ := newTaskConfig(t, e.image.Ref, "exit", "0")
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, "no progress for 1s")
}

// TestDriver_ImageGC removes an image once its last task is gone and the
// delay has passed, and keeps one a task uses again meanwhile.
func TestDriver_ImageGC(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, func(c *PluginConfig) { c.GC.ImageDelay = 300 * time.Millisecond })
	present := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := e.engine.ImageInspect(ctx, e.image.Ref)
		return err == nil
	}
	first, _ := newTaskConfig(t, e.image.Ref, "exit", "0")
	second, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	startTask(t, d, first)
	startTask(t, d, second)
	waitResult(t, d, first.ID)
	must.NoError(t, d.DestroyTask(first.ID, false))
	waitfor.Always(t, "image kept while a task uses it", time.Second, present)

	must.NoError(t, d.DestroyTask(second.ID, true))
	waitfor.True(t, "image removed after the delay", func() bool { return !present() })
}
