package taskrunner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/structs"
)

// restartAgent shuts the harness's runner down, as a stopping agent does,
// and returns a new runner restored from the state DB.
func (h *harness) restartAgent() {
	h.t.Helper()
	h.tr.Shutdown()
	h.tr = h.newRunner()
	must.NoError(h.t, h.tr.Restore())
}

// replaceDriver gives the harness a new mock driver that knows none of the
// old one's tasks, as after a reboot of the driver's process.
func (h *harness) replaceDriver() {
	h.driver = mock.New(nil)
	h.catalog = drivers.NewCatalog(h.driver)
}

func TestTaskRunner_RestoreReattachesRunningTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1m", "exit_code": 3})
		h := newBatchHarness(t, task)
		start := time.Now()
		h.run()
		time.Sleep(10 * time.Second)
		taskID := h.tr.currentHandle().Config.ID

		h.restartAgent()
		must.Eq(t, structs.TaskStateRunning, h.tr.TaskState().State)
		h.run()
		synctest.Wait()
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStateRunning, ts.State)
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, taskID, h.tr.currentHandle().Config.ID)

		ts = h.waitDead()
		must.Eq(t, time.Minute, time.Since(start), must.Sprint("the task ran once, for its run_for"))
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, 3, tasktest.LastEvent(ts, structs.TaskTerminated).ExitCode)
		must.True(t, ts.Failed)
	})
}

func TestTaskRunner_RestoreTaskThatExitedWhileAgentWasDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "30s", "exit_code": 4})
		h := newBatchHarness(t, task)
		start := time.Now()
		h.run()
		time.Sleep(10 * time.Second)
		h.tr.Shutdown()

		// The agent is down for a minute; its driver forgot the task.
		h.replaceDriver()
		time.Sleep(time.Minute)
		h.tr = h.newRunner()
		must.NoError(t, h.tr.Restore())
		h.run()
		ts := h.waitDead()
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, 4, tasktest.LastEvent(ts, structs.TaskTerminated).ExitCode)
		must.MapNotContainsKey(t, tasktest.LastEvent(ts, structs.TaskTerminated).Details, "exit_message")
		must.True(t, ts.Failed)
		must.Eq(t, start.Add(30*time.Second), ts.FinishedAt,
			must.Sprint("the task finished when it exited, not when the restarted agent learnt of it"))
	})
}

func TestTaskRunner_RestoreUnrecoverableTaskAppliesRestartPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1h"})
		task.RestartPolicy.Attempts = 1
		h := newBatchHarness(t, task)
		h.run()
		time.Sleep(10 * time.Second)
		h.tr.Shutdown()
		oldDriver, oldID := h.driver, h.tr.currentHandle().Config.ID
		// The bubble must end with no task left behind.
		defer oldDriver.DestroyTask(oldID, true)

		h.replaceDriver()
		h.tr = h.newRunner()
		must.NoError(t, h.tr.Restore())
		h.run()
		time.Sleep(time.Minute)
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStateRunning, ts.State)
		must.Eq(t, uint64(1), ts.Restarts)
		must.StrContains(t, tasktest.LastEvent(ts, structs.TaskTerminated).Message, "could not be re-attached")
		must.Eq(t, 2, tasktest.CountEvents(ts, structs.TaskStarted))
		h.kill(nil)
	})
}

func TestTaskRunner_RestoreDeadTaskDoesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1s"}))
		h.run()
		before := h.waitDead()

		h.tr = h.newRunner()
		must.NoError(t, h.tr.Restore())
		h.run()
		after := h.waitDead()
		must.Eq(t, before.Events, after.Events)
		must.Eq(t, 1, tasktest.CountEvents(after, structs.TaskStarted))
	})
}

func TestTaskRunner_RestoreKeepsRestartCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1s", "exit_code": 1})
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 2, Interval: time.Hour, Delay: 10 * time.Second, Mode: structs.RestartPolicyModeFail}
		h := newBatchHarness(t, task)
		h.run()
		// Run 1 fails at 1s; run 2 starts at 11s and fails at 12s.
		time.Sleep(15 * time.Second)
		must.Eq(t, uint64(2), h.tr.TaskState().Restarts)

		h.restartAgent()
		h.run()
		ts := h.waitDead()
		// Only the attempts left were used: run 3 ran, and failed the task.
		must.Eq(t, uint64(2), ts.Restarts)
		must.True(t, ts.Failed)
	})
}
