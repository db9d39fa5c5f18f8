package taskrunner

import (
	"time"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/nomad/structs"
)

// updateState changes the task's state under the lock, persists the
// result and tells the state updater.
func (tr *TaskRunner) updateState(change func(ts *structs.TaskState, local *state.TaskRunnerLocalState)) {
	tr.persistMu.Lock()
	tr.mu.Lock()
	change(tr.state, tr.local)
	ts, local := tr.state.Copy(), tr.local.Copy()
	tr.mu.Unlock()

	if err := tr.stateDB.PutTaskRunnerState(tr.allocID, tr.taskName, local, ts); err != nil {
		tr.logger.Error("failed to persist task state", "error", err)
	}
	tr.persistMu.Unlock()

	if tr.updater != nil {
		tr.updater.TaskStateUpdated()
	}
}

// emit records events.
func (tr *TaskRunner) emit(events ...*structs.TaskEvent) {
	tr.updateState(func(*structs.TaskState, *state.TaskRunnerLocalState) {
		for _, ev := range events {
			tr.appendEvent(ev)
		}
	})
}

// appendEvent adds ev to the task's events, keeping the last
// maxTaskEvents, and marks the task failed when the event says so. The
// caller holds mu or owns the runner exclusively.
func (tr *TaskRunner) appendEvent(ev *structs.TaskEvent) {
	s := tr.state
	s.Events = append(s.Events, ev)
	if n := len(s.Events); n > maxTaskEvents {
		s.Events = append([]*structs.TaskEvent(nil), s.Events[n-maxTaskEvents:]...)
	}
	if ev.FailsTask {
		s.Failed = true
	}
}

// setRunning records a started run: the running state and a Started
// event. StartedAt is the first start's time.
func (tr *TaskRunner) setRunning(ts *structs.TaskState) {
	ts.State = structs.TaskStateRunning
	if ts.StartedAt.IsZero() {
		ts.StartedAt = time.Now()
	}
	tr.appendEvent(startedEvent())
}

// setDead marks the task dead for good.
func setDead(ts *structs.TaskState, failed bool) {
	ts.State = structs.TaskStateDead
	ts.FinishedAt = time.Now()
	if failed {
		ts.Failed = true
	}
}

// setRestarting records a restart: the task is pending until its next run.
func (tr *TaskRunner) setRestarting(ts *structs.TaskState, local *state.TaskRunnerLocalState, ev *structs.TaskEvent) {
	ts.State = structs.TaskStatePending
	ts.Restarts++
	ts.LastRestart = time.Now()
	tr.appendEvent(ev)
	local.RestartCount, local.RestartWindowStart = tr.restarts.persisted()
}
