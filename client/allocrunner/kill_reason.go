package allocrunner

import (
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// KillReason is why the alloc runner kills every task of its allocation.
type KillReason int

const (
	// KillReasonStopped: the servers stopped the allocation. Poststop tasks
	// still run once the others are dead.
	KillReasonStopped KillReason = iota + 1
	// KillReasonDestroyed: the client is destroying the allocation. Nothing
	// more starts.
	KillReasonDestroyed
	// KillReasonNotRunnable: the allocation was already stopped when its
	// runner began. Nothing starts.
	KillReasonNotRunnable
	// KillReasonMaxRunDuration: the group outlived its max_run_duration.
	// Nothing more starts, poststop tasks included, and once every task has
	// stopped the allocation is complete with that reason.
	KillReasonMaxRunDuration
)

func (r KillReason) String() string {
	switch r {
	case KillReasonStopped:
		return "stopped"
	case KillReasonDestroyed:
		return "destroyed"
	case KillReasonNotRunnable:
		return "not runnable"
	case KillReasonMaxRunDuration:
		return "max_run_duration exceeded"
	}
	return "unknown"
}

// displayMessage is the Killing event's display message; empty means the
// task runner's default.
func (r KillReason) displayMessage() string {
	if r == KillReasonMaxRunDuration {
		return structs.AllocTimeoutReasonMaxRunDuration
	}
	return ""
}

// runsPoststop reports whether poststop tasks still run after the kill.
func (r KillReason) runsPoststop() bool {
	return r == KillReasonStopped
}

// record notes the reason in the runner's persisted state and reports
// whether that changed it.
func (r KillReason) record(s *state.AllocRunnerState) bool {
	if r == KillReasonMaxRunDuration && !s.MaxRunDurationExceeded {
		s.MaxRunDurationExceeded = true
		return true
	}
	return false
}

// allocKiller is what a runner hook uses to kill every task of the
// allocation (see AllocRunner.killAll).
type allocKiller interface {
	killAll(reason KillReason)
}

var _ allocKiller = (*AllocRunner)(nil)
