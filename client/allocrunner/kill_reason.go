package allocrunner

import (
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// What each kill reason means to the runner, as pure functions of the
// reason (state.KillReason lists them). The runner records the reason of
// the kill in force in its persisted state (AllocRunnerState.KillReason)
// and every decision about the kill reads it there: which tasks are
// killed, which may still start, what the Killing event says, how the
// allocation ends, and what a restored runner resumes.

// runsPoststop reports whether poststop tasks still run, after the
// others, in a kill for reason: only when the servers stopped the
// allocation. Every other reason, unknown ones included, starts nothing
// more.
func runsPoststop(reason state.KillReason) bool {
	return reason == state.KillReasonStopped
}

// nextKillReason is the reason in force once a kill for reason is asked
// while a kill for current (empty: none) is: a kill that lets poststop
// tasks run is overtaken by one that does not; otherwise the first reason
// stays, so that an expired max_run_duration is never turned back into a
// stop that would run the poststop tasks.
func nextKillReason(current, reason state.KillReason) state.KillReason {
	if current == "" || (runsPoststop(current) && !runsPoststop(reason)) {
		return reason
	}
	return current
}

// killEventMessage is the display message of the Killing event each task
// gets in a kill for reason; empty means the task runner's default.
func killEventMessage(reason state.KillReason) string {
	if reason == state.KillReasonMaxRunDuration {
		return structs.AllocTimeoutReasonMaxRunDuration
	}
	return ""
}

// killedClientStatus is how an allocation killed for reason ends once
// every task has stopped, outcome being its group's
// (structs.Allocation.MaxRunOutcome); ok is false when its tasks' states
// decide, as for an allocation that was not killed.
func killedClientStatus(reason state.KillReason, outcome string) (status, description string, ok bool) {
	if reason == state.KillReasonMaxRunDuration {
		return outcome, structs.AllocTimeoutReasonMaxRunDuration, true
	}
	return "", "", false
}

// allocKiller is what a runner hook uses to kill every task of the
// allocation (see AllocRunner.killAll).
type allocKiller interface {
	killAll(reason state.KillReason)
}

var _ allocKiller = (*AllocRunner)(nil)
