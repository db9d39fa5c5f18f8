package allocrunner

import (
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// Client descriptions, Nomad's wording.
const (
	descPending  = "No tasks have started"
	descRunning  = "Tasks are running"
	descFailed   = "Failed tasks"
	descComplete = "All tasks have completed"
	descLost     = "The allocation was lost"
)

// clientStatus derives the allocation's ClientStatus and ClientDescription
// from its tasks' states:
//
//   - an allocation the servers already consider lost stays lost;
//   - one killed for a reason that decides how it ends (max_run_duration:
//     the group's max_run_outcome, complete or failed, with that
//     description; see killedClientStatus) ends so once every task has
//     really stopped, unless a task was failing when the deadline passed
//     (waiting to restart after a failure, or dead of one): then it ends
//     failed, its description naming the task and the failure
//     (structs.AllocTimeoutWhileFailing);
//   - otherwise any failed task makes it failed; then it is running while a
//     task runs or waits to run again after having started (a restart, a
//     poststop task about to start), pending while no task has started yet;
//   - once every task is dead, one of whose tasks its own max_run_duration
//     killed ends as the group's max_run_outcome says, with the
//     description "task exceeded max_run_duration"; any other is complete.
//
// outcome is the group's max_run_outcome, as a client status
// (structs.Allocation.MaxRunOutcome).
func clientStatus(g groupStates, serverStatus string, kill state.KillReason, outcome string) (status, description string) {
	if serverStatus == structs.AllocClientStatusLost {
		return structs.AllocClientStatusLost, descLost
	}
	allDead := g.all(func(_ *structs.Task, s *structs.TaskState) bool { return isDead(s) })
	if status, description, ok := killedClientStatus(kill, outcome); ok && allDead {
		if f, failing := g.failingTask(); failing && kill == state.KillReasonMaxRunDuration {
			return structs.AllocClientStatusFailed, structs.AllocTimeoutWhileFailing(f.task, f.event.FailureText())
		}
		return status, description
	}
	var failed, running, pending, started, taskTimedOut bool
	for _, t := range g.tasks {
		s := g.state(t.Name)
		started = started || hasStarted(s)
		taskTimedOut = taskTimedOut || s.MaxRunExceeded
		switch {
		case isDead(s) && s.Failed:
			failed = true
		case s.State == structs.TaskStateRunning:
			running = true
		case s.State == structs.TaskStatePending:
			pending = true
		}
	}
	// Between runs an allocation that has started stays running rather
	// than going back to pending.
	running = running || (pending && started)
	switch {
	case failed:
		return structs.AllocClientStatusFailed, descFailed
	case running:
		return structs.AllocClientStatusRunning, descRunning
	case pending:
		return structs.AllocClientStatusPending, descPending
	case taskTimedOut:
		return outcome, structs.TaskTimeoutReasonMaxRunDuration
	default:
		return structs.AllocClientStatusComplete, descComplete
	}
}
