package taskrunner

import (
	"context"
	"reflect"
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
	tr.mu.Lock()
	tr.checkRun = h
	tr.mu.Unlock()
	tr.refreshChecks()
}

// refreshChecks starts the checks of the run in progress anew when what
// defines them changed (an in-place update of the job), or for the first
// time; it leaves them be otherwise. Sets are swapped under mu and started
// and stopped outside it: a Set stopped before it started never starts.
func (tr *TaskRunner) refreshChecks() {
	tr.mu.Lock()
	h, alloc, task := tr.checkRun, tr.alloc, tr.task
	if h == nil {
		tr.mu.Unlock()
		return
	}
	defs := checkDefsOf(alloc, task)
	if tr.checksBuilt && reflect.DeepEqual(defs, tr.checkDefs) {
		tr.mu.Unlock()
		return
	}
	old := tr.checks
	tr.checks, tr.checkDefs, tr.checksBuilt = tr.newCheckSet(h, alloc, task), defs, true
	set := tr.checks
	tr.mu.Unlock()
	if old != nil {
		old.Stop()
	}
	if set != nil {
		set.Start()
	}
}

// checkDefs is what defines a task's checks: its services and its
// group's.
type checkDefs struct{ group, task []*structs.Service }

func checkDefsOf(alloc *structs.Allocation, task *structs.Task) checkDefs {
	var d checkDefs
	if tg := alloc.LookupTaskGroup(); tg != nil {
		d.group = tg.Services
	}
	if task != nil {
		d.task = task.Services
	}
	return d
}

// newCheckSet builds the Set of the run h's checks; nil for none.
func (tr *TaskRunner) newCheckSet(h *drivers.TaskHandle, alloc *structs.Allocation, task *structs.Task) *servicecheck.Set {
	var exec servicecheck.ExecFunc
	// Only the drivers validation lets run scripts (structs.ExecDrivers).
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
		Guard: tr.addresses,
	})
	if len(checks) == 0 {
		return nil
	}
	runID := h.Config.ID
	return servicecheck.NewSet(checks, func(reason string) { tr.restartForCheck(runID, reason) }, tr.logger)
}

// stopChecks stops the checks of the run, if any run. It may be called
// more than once.
func (tr *TaskRunner) stopChecks() {
	tr.mu.Lock()
	set := tr.checks
	tr.checks, tr.checkRun, tr.checkDefs, tr.checksBuilt = nil, nil, checkDefs{}, false
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
