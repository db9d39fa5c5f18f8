package taskrunner

import (
	"context"
	"slices"
	"time"

	"github.com/drover-io/drover/client/servicecheck"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// The service checks of a run: those of the task's services, and those of
// the group's services that name the task. They run from the moment the
// driver reports the run started (or recovered) until it ends, so that a
// restart's new run counts its check_restart grace afresh.

// startChecks starts the checks of the run h, if the task has any.
func (tr *TaskRunner) startChecks(h *drivers.TaskHandle) {
	alloc, task := tr.snapshot()
	var exec servicecheck.ExecFunc
	// Only the drivers validation lets run scripts: the exec driver's
	// ExecTask (raw_exec's) would run the command outside its isolation.
	if drv, ok := tr.drivers.Lookup(h.Driver); ok && slices.Contains(structs.ExecDrivers, h.Driver) {
		if execer, ok := drv.(drivers.Execer); ok {
			id := h.Config.ID
			exec = func(ctx context.Context, cmd []string, timeout time.Duration) (*drivers.ExecResult, error) {
				return execer.ExecTask(ctx, id, cmd, timeout)
			}
		}
	}
	checks := servicecheck.Build(servicecheck.Owner{
		Alloc: alloc, Task: task, Env: ServiceInterpolator(alloc, task, tr.node), Exec: exec,
	})
	if len(checks) == 0 {
		return
	}
	runID := h.Config.ID
	set := servicecheck.NewSet(checks, func(reason string) { tr.restartForCheck(runID, reason) }, tr.logger)
	tr.mu.Lock()
	tr.checks = set
	tr.mu.Unlock()
	set.Start()
}

// stopChecks stops the checks of the run, if any run. It may be called
// more than once.
func (tr *TaskRunner) stopChecks() {
	tr.mu.Lock()
	set := tr.checks
	tr.checks = nil
	tr.mu.Unlock()
	if set != nil {
		set.Stop()
	}
}

// CheckStatuses returns the latest status of each check of the current
// run; none between runs.
func (tr *TaskRunner) CheckStatuses() []servicecheck.Status {
	tr.mu.Lock()
	set := tr.checks
	tr.mu.Unlock()
	if set == nil {
		return nil
	}
	return set.Statuses()
}

// restartForCheck restarts the run runID because a check's check_restart
// limit was reached: a Restart Signaled event with reason, then a restart
// that counts against the restart policy, as a failure would. A request
// that comes after the run ended is dropped (see superviseRun).
func (tr *TaskRunner) restartForCheck(runID, reason string) {
	req := restartRequest{event: NewRestartSignalEvent(reason), done: make(chan struct{}), runID: runID, failure: true}
	select {
	case tr.restartCh <- req:
	case <-tr.waitCh:
	case <-tr.killCtx.Done():
	case <-tr.shutdownCtx.Done():
	}
}

// checkRestartDecision applies the restart policy to a restart a check
// asked for, as to an exit.
func (tr *TaskRunner) checkRestartDecision() restartDecision {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.restarts.attempt(time.Now())
}
