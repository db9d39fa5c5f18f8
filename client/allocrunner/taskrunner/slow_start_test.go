package taskrunner

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/structs"
)

// pullingDriver is the mock driver with a start that reports progress as
// a driver event and then waits, as an image pull does, until released
// or aborted (drivers.StartAborter).
type pullingDriver struct {
	*mock.Driver
	release chan struct{}
	abort   chan struct{}
}

func newPullingDriver() *pullingDriver {
	return &pullingDriver{Driver: mock.New(nil), release: make(chan struct{}), abort: make(chan struct{})}
}

func (d *pullingDriver) StartTask(cfg *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	cfg.Emit(&drivers.TaskEvent{Message: "Downloading image example", Details: map[string]string{"image": "example"}})
	select {
	case <-d.release:
		return d.Driver.StartTask(cfg)
	case <-d.abort:
		return nil, errors.New("start abandoned")
	}
}

func (d *pullingDriver) AbortStart(string) { close(d.abort) }

func pullingHarness(t *testing.T) (*harness, *pullingDriver) {
	h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1h"}))
	d := newPullingDriver()
	h.catalog = drivers.NewCatalog(d)
	h.tr = h.newRunner()
	return h, d
}

// TestTaskRunner_DriverEvents records a driver's messages as task events
// of type Driver.
func TestTaskRunner_DriverEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, d := pullingHarness(t)
		h.run()
		synctest.Wait()
		ev := tasktest.LastEvent(h.tr.TaskState(), structs.TaskDriverMessage)
		must.NotNil(t, ev)
		must.Eq(t, "Downloading image example", ev.DisplayMessage)
		must.Eq(t, "Downloading image example", ev.DriverMessage)
		must.Eq(t, "example", ev.Details["image"])

		close(d.release)
		synctest.Wait()
		must.Eq(t, structs.TaskStateRunning, h.tr.TaskState().State)
		h.kill(nil)
	})
}

// TestTaskRunner_ShutdownAbortsSlowStart abandons a start the driver can
// abandon when the agent stops, without counting it as the task's
// failure: the next agent starts the task afresh.
func TestTaskRunner_ShutdownAbortsSlowStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _ := pullingHarness(t)
		h.run()
		time.Sleep(time.Minute)

		h.tr.Shutdown()
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStatePending, ts.State)
		must.False(t, ts.Failed)
		must.Eq(t, 0, tasktest.CountEvents(ts, structs.TaskDriverFailure))
		must.Eq(t, 0, tasktest.CountEvents(ts, structs.TaskNotRestarting))
		local, _, err := h.db.GetTaskRunnerState(h.alloc.ID, "web")
		must.NoError(t, err)
		must.Nil(t, local.TaskHandle)
	})
}
