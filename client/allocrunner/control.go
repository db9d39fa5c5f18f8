package allocrunner

import (
	"context"
	"errors"
	"fmt"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// Update applies a new version of the allocation from the servers. A
// desired stop kills every task (poststop tasks still run); otherwise the
// Update hooks run and the task runners get the new task definitions,
// which apply from each task's next run. Updates are applied one at a
// time, in the order they come; once Destroy has begun they are ignored.
func (ar *AllocRunner) Update(alloc *structs.Allocation) {
	if alloc == nil || alloc.ID != ar.id {
		ar.logger.Error("ignoring update for another allocation")
		return
	}
	ar.updateMu.Lock()
	defer ar.updateMu.Unlock()
	if ar.updatesClosed {
		ar.logger.Debug("ignoring update of an allocation being destroyed")
		return
	}
	ar.mu.Lock()
	if alloc.Job == nil {
		// An update without its job keeps the job the runner has.
		alloc = alloc.CopySkipJob()
		alloc.Job = ar.alloc.Job
	}
	ar.alloc = alloc
	if tg := alloc.LookupTaskGroup(); tg != nil {
		for _, e := range ar.tasks {
			if task := tg.LookupTask(e.task.Name); task != nil {
				e.task = task
			}
		}
	}
	ar.mu.Unlock()

	if err := ar.stateDB.PutAllocation(alloc); err != nil {
		ar.logger.Error("failed to persist allocation", "error", err)
	}
	ar.updateHooks(&RunnerUpdateRequest{Alloc: alloc})
	if desiredStop(alloc) {
		ar.killAll(state.KillReasonStopped)
	} else {
		for _, e := range ar.tasks {
			e.runner.Update(alloc)
		}
	}
	ar.TaskStateUpdated()
}

// Shutdown detaches the runner from the allocation, as the agent stops:
// tasks keep running, the Shutdown hooks run, and the next agent restores
// the runner. It returns once Run has returned.
func (ar *AllocRunner) Shutdown() {
	ar.shutdownOnce.Do(func() {
		close(ar.shutdownCh)
		ar.TaskStateUpdated()
	})
	ar.mu.Lock()
	ran := ar.phase != phaseCreated
	ar.mu.Unlock()
	if ran {
		ar.running.Wait()
	}
}

// Destroy kills every task, waits for them to die, runs the Destroy hooks
// (which remove the allocation directory) and deletes the allocation's
// persisted state. A runner that has not run yet runs now: a restored one
// may hold tasks an earlier agent left running, and only Run re-attaches to
// them; the recorded kill then ends them before any other task starts.
//
// If the agent stops first, the tasks are left running with the kill
// recorded, and the directory and state stay for the next agent, which
// finishes the kill.
func (ar *AllocRunner) Destroy() {
	ar.destroyOnce.Do(func() {
		// Taking updateMu waits out an Update under way; later ones see
		// updatesClosed and do nothing.
		ar.updateMu.Lock()
		ar.updatesClosed = true
		ar.updateMu.Unlock()

		ar.killAll(state.KillReasonDestroyed)
		// Returns at once when Run is, or was, under way elsewhere.
		ar.Run()
		ar.running.Wait()
		select {
		case <-ar.waitCh:
			// Every task is dead and the Postrun hooks have run.
		default:
			ar.logger.Info("agent stopping: the allocation's tasks run on, and the next agent finishes destroying it")
			return
		}
		ar.destroyHooks()
		if err := ar.stateDB.DeleteAllocationBucket(ar.id); err != nil {
			ar.logger.Error("failed to delete allocation state", "error", err)
		}
	})
}

// RestartTask restarts the named running task; ev (nil for a default) is
// recorded as its Restart Signaled event.
func (ar *AllocRunner) RestartTask(task string, ev *structs.TaskEvent) error {
	e, err := ar.entry(task)
	if err != nil {
		return err
	}
	if err := e.runner.Restart(context.Background(), ev); err != nil {
		return fmt.Errorf("restart task %q: %w", task, err)
	}
	return nil
}

// RestartAll restarts every running task.
func (ar *AllocRunner) RestartAll(ev *structs.TaskEvent) error {
	var errs []error
	for _, e := range ar.tasks {
		var copied *structs.TaskEvent
		if ev != nil {
			copied = ev.Copy()
		}
		err := e.runner.Restart(context.Background(), copied)
		if err != nil && !errors.Is(err, taskrunner.ErrTaskNotRunning) {
			errs = append(errs, fmt.Errorf("restart task %q: %w", e.task.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Signal sends signal to the named task, or to every running task when
// task is empty.
func (ar *AllocRunner) Signal(task, signal string) error {
	if task != "" {
		e, err := ar.entry(task)
		if err != nil {
			return err
		}
		return e.runner.Signal(signal, "")
	}
	var errs []error
	for _, e := range ar.tasks {
		err := e.runner.Signal(signal, "")
		if err != nil && !errors.Is(err, taskrunner.ErrTaskNotRunning) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (ar *AllocRunner) entry(task string) (*taskEntry, error) {
	e := ar.lookupTask(task)
	if e == nil {
		return nil, fmt.Errorf("allocation %s has no task %q", ar.id, task)
	}
	return e, nil
}

// lookupTask returns the named task's entry, or nil. It needs no lock: the
// entries and their runners' names never change. A group has a few tasks:
// a scan costs nothing, where a map would cost a few hundred bytes per
// allocation for as long as it runs.
func (ar *AllocRunner) lookupTask(task string) *taskEntry {
	for _, e := range ar.tasks {
		if e.runner.Name() == task {
			return e
		}
	}
	return nil
}
