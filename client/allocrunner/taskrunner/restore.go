package taskrunner

import (
	"fmt"

	"github.com/drover-io/drover/drivers"
)

// Restore loads the task's persisted state. Call it before Run when
// picking up after an agent restart; Run then re-attaches to a task that
// is still running instead of starting it again.
func (tr *TaskRunner) Restore() error {
	local, ts, err := tr.stateDB.GetTaskRunnerState(tr.allocID, tr.taskName)
	if err != nil {
		return fmt.Errorf("restore task %q: %w", tr.taskName, err)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if ts != nil {
		tr.state = ts
	}
	if local != nil {
		local.Hooks = sharedHooks(local.Hooks)
		tr.local = local
		tr.restarts.restore(local.RestartCount, local.RestartWindowStart)
	}
	return nil
}

// recoverTask re-attaches to the run recorded in the restored handle. It
// returns the handle, or nil when there is no run to re-attach to, and
// false when the runner must stop.
//
// A run that cannot be recovered ended in a way nobody saw: it is recorded
// as ended with an error, and the restart policy decides what follows.
func (tr *TaskRunner) recoverTask() (*drivers.TaskHandle, bool) {
	h := tr.currentHandle()
	if h == nil {
		return nil, true
	}
	drv, ok := tr.drivers.Lookup(h.Driver)
	err := fmt.Errorf("driver %q is not available on this node", h.Driver)
	if ok {
		err = drv.RecoverTask(h)
	}
	if err != nil {
		tr.logger.Error("failed to re-attach to task", "task_id", h.Config.ID, "error", err)
		res := &drivers.ExitResult{Err: fmt.Errorf("task could not be re-attached after the client restarted: %w", err)}
		return nil, tr.afterExit(h, res)
	}
	tr.logger.Info("re-attached to task", "task_id", h.Config.ID)
	return h, true
}
