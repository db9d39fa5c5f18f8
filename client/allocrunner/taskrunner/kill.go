package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// Kill kills the task and returns once it is dead, or when ctx is done.
//
// ev says why: a Killing event is recorded with its display message; any
// other event (Leader Task Dead, Sibling Task Failed, ...) is recorded
// before a default Killing event. A task that has not started never will;
// a running one gets its kill_signal, and SIGKILL after kill_timeout; the
// restart policy does not restart a killed task. Killing a dead task does
// nothing.
func (tr *TaskRunner) Kill(ctx context.Context, ev *structs.TaskEvent) error {
	return tr.kill(ctx, ev, false)
}

// kill is Kill; maxRunExceeded records, with the Killing event, that the
// task is killed for its own max_run_duration, when this kill is the
// task's first.
func (tr *TaskRunner) kill(ctx context.Context, ev *structs.TaskEvent, maxRunExceeded bool) error {
	tr.persistMu.Lock()
	tr.mu.Lock()
	first := !tr.killing && tr.state.State != structs.TaskStateDead
	if first {
		tr.killing = true
		if maxRunExceeded {
			tr.state.MaxRunExceeded = true
		}
		signal, timeout := killParams(tr.task)
		if ev != nil && ev.Type != structs.TaskKilling {
			tr.appendEvent(ev)
			ev = nil
		}
		tr.appendEvent(killingEvent(ev, signal, timeout))
	}
	ts, local := tr.state.Copy(), tr.local.Copy()
	tr.mu.Unlock()
	if first {
		if err := tr.stateDB.PutTaskRunnerState(tr.allocID, tr.taskName, local, ts); err != nil {
			tr.logger.Error("failed to persist task state", "error", err)
		}
	}
	tr.persistMu.Unlock()
	if first && tr.updater != nil {
		tr.updater.TaskStateUpdated()
	}
	if first && maxRunExceeded && tr.maxRunEvents != nil {
		tr.maxRunEvents.TaskMaxRunExceeded(tr.taskName)
	}
	tr.killCancel()
	tr.cancelSetup()

	select {
	case <-tr.waitCh:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stopKilled stops a running task being killed and records its end. exitCh
// is the run's wait channel, or nil to open one.
func (tr *TaskRunner) stopKilled(h *drivers.TaskHandle, exitCh <-chan *drivers.ExitResult) {
	drv, ok := tr.drivers.Lookup(h.Driver)
	if !ok {
		tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
			local.TaskHandle = nil
			tr.appendEvent(killedEvent(fmt.Errorf("driver %q is not available on this node", h.Driver)))
			setDead(ts, false, nil)
		})
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if exitCh == nil {
		var err error
		if exitCh, err = drv.WaitTask(ctx, h.Config.ID); err != nil {
			exitCh = nil
		}
	}

	res, killErr := tr.stopRun(drv, h, exitCh, true)
	tr.releaseRun(h)
	tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
		local.TaskHandle = nil
		tr.appendEvent(terminatedEvent(res))
		tr.appendEvent(killedEvent(killErr))
		setDead(ts, false, res)
	})
}

// stopRun stops the run: it waits out the shutdown delay when asked to,
// sends the kill signal, and after kill_timeout kills the task. It returns
// the run's exit result and any error stopping it.
func (tr *TaskRunner) stopRun(drv drivers.Driver, h *drivers.TaskHandle, exitCh <-chan *drivers.ExitResult, shutdownDelay bool) (*drivers.ExitResult, error) {
	alloc, task := tr.snapshot()
	if shutdownDelay && task.ShutdownDelay > 0 {
		if res, exited := tr.waitShutdownDelay(alloc, task.ShutdownDelay, exitCh); exited {
			return res, nil
		}
	}
	signal, timeout := killParams(task)
	stopErr := drv.StopTask(h.Config.ID, timeout, signal)
	if stopErr != nil && !errors.Is(stopErr, drivers.ErrTaskNotFound) {
		// The kill signal could not be sent (a bad kill_signal, a driver
		// fault): make sure the task ends anyway.
		tr.logger.Warn("failed to stop task, killing it", "error", stopErr)
		if err := drv.DestroyTask(h.Config.ID, true); err != nil {
			tr.logger.Error("failed to kill task", "error", err)
		}
	}
	var res *drivers.ExitResult
	if exitCh != nil {
		res = <-exitCh
	}
	if res == nil {
		res = &drivers.ExitResult{Err: errors.New("exit status unknown")}
	}
	if errors.Is(stopErr, drivers.ErrTaskNotFound) {
		stopErr = nil
	}
	return res, stopErr
}

// waitShutdownDelay waits the task's shutdown_delay before its kill,
// unless the allocation asks to skip it. It reports the exit result if the
// task ended meanwhile.
func (tr *TaskRunner) waitShutdownDelay(alloc *structs.Allocation, delay time.Duration, exitCh <-chan *drivers.ExitResult) (*drivers.ExitResult, bool) {
	if skip := alloc.DesiredTransition.NoShutdownDelay; skip != nil && *skip {
		tr.emit(skippingShutdownDelayEvent(delay))
		return nil, false
	}
	tr.emit(shutdownDelayEvent(delay))
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil, false
	case res, ok := <-exitCh:
		if !ok {
			return nil, false
		}
		return res, true
	}
}
