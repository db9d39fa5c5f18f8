package taskrunner

import (
	"context"
	"errors"
	"fmt"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// Restart stops the running task and starts it again at once. ev (nil for
// a default Restart Signaled event) is recorded first. A restart asked for
// this way does not count against the restart policy. It returns once the
// old run has stopped.
func (tr *TaskRunner) Restart(ctx context.Context, ev *structs.TaskEvent) error {
	if tr.currentHandle() == nil {
		return ErrTaskNotRunning
	}
	if ev == nil {
		ev = NewRestartSignalEvent("")
	}
	req := restartRequest{event: ev, done: make(chan struct{})}
	select {
	case tr.restartCh <- req:
	case <-tr.waitCh:
		return ErrTaskNotRunning
	case <-tr.killCtx.Done():
		return ErrTaskNotRunning
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-req.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// restartRun carries out a restart request on the running run h. It
// reports whether the task is to run again. A failure restart (a check's)
// goes through the restart policy as an exit would: its delay, or the
// task's failure once its attempts are used up.
func (tr *TaskRunner) restartRun(h *drivers.TaskHandle, exitCh <-chan *drivers.ExitResult, req restartRequest) bool {
	defer close(req.done)
	tr.emit(req.event)
	drv, ok := tr.drivers.Lookup(h.Driver)
	var (
		res = &drivers.ExitResult{Err: fmt.Errorf("driver %q is not available on this node", h.Driver)}
		err error
	)
	if ok {
		res, err = tr.stopRun(drv, h, exitCh, false)
	}
	tr.releaseRun(h)
	if err != nil {
		tr.logger.Warn("error stopping task for restart", "error", err)
	}
	if tr.killed() {
		tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
			local.TaskHandle = nil
			tr.appendEvent(terminatedEvent(res))
			tr.appendEvent(killedEvent(nil))
			setDead(ts, false, res)
		})
		return false
	}
	if req.failure {
		decision := tr.checkRestartDecision()
		tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
			local.TaskHandle = nil
			tr.appendEvent(terminatedEvent(res))
			tr.applyDecision(ts, local, decision, res)
		})
		return decision.Verdict == restartTask && tr.waitRestartDelay(decision.Delay)
	}
	tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
		local.TaskHandle = nil
		tr.appendEvent(terminatedEvent(res))
		tr.setRestarting(ts, local, restartingEvent(0, req.event.RestartReason))
	})
	return !tr.shuttingDown()
}

// Signal sends signal to the running task, recording a Signaling event
// with reason.
func (tr *TaskRunner) Signal(signal, reason string) error {
	h := tr.currentHandle()
	if h == nil {
		return ErrTaskNotRunning
	}
	if _, err := drivers.Signal(signal); err != nil {
		return fmt.Errorf("signal task %q: %w", tr.taskName, err)
	}
	drv, ok := tr.drivers.Lookup(h.Driver)
	if !ok {
		return fmt.Errorf("signal task %q: driver %q is not available on this node", tr.taskName, h.Driver)
	}
	tr.emit(signalingEvent(signal, reason))
	if err := drv.SignalTask(h.Config.ID, signal); err != nil {
		if errors.Is(err, drivers.ErrTaskNotFound) {
			return ErrTaskNotRunning
		}
		return fmt.Errorf("signal task %q: %w", tr.taskName, err)
	}
	return nil
}
