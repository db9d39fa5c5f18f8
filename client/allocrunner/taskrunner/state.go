package taskrunner

import (
	"time"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
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

// setDead marks the task dead for good, finished now or, when res says
// when its process exited, then.
func setDead(ts *structs.TaskState, failed bool, res *drivers.ExitResult) {
	ts.State = structs.TaskStateDead
	ts.FinishedAt = exitTime(res, time.Now())
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

// exitTime is when the run that ended with res finished: the moment the
// driver saw its process exit, which can be well before the exit reaches
// the task runner (a busy agent, an agent restarted meanwhile), or now
// when the driver does not know. A time after now, from a clock that
// stepped back, is not believed.
func exitTime(res *drivers.ExitResult, now time.Time) time.Time {
	if res == nil || res.ExitedAt.IsZero() || res.ExitedAt.After(now) {
		return now
	}
	return res.ExitedAt
}
