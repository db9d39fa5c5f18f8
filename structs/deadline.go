package structs

import (
	"math"
	"time"
)

// AllocTimeoutReasonMaxRunDuration is the ClientDescription of an allocation,
// and the DisplayMessage of each Killing event, when a group outlives its
// max_run_duration.
const AllocTimeoutReasonMaxRunDuration = "allocation exceeded max_run_duration"

// MaxRunScope says where a max_run_duration budget comes from.
type MaxRunScope string

// MaxRunScopeGroup is the task group's max_run_duration, counted from the
// allocation's CreateTime.
const MaxRunScopeGroup MaxRunScope = "group"

// MaxRun is a max_run_duration budget as it applies to an allocation: what
// the client enforces, the metrics report, the HTTP API shows and the CLI
// prints. Every reader takes it from Allocation.MaxRun rather than working
// it out again, so that they cannot disagree.
//
// The zero value means that no budget applies.
type MaxRun struct {
	// Scope is where Budget comes from; empty when no budget applies.
	Scope MaxRunScope
	// Budget is the max_run_duration that applies; zero when none does.
	Budget time.Duration
	// Anchor is the moment the budget counts from; zero when it does not
	// count yet (see Deadline).
	Anchor time.Time
	// Deadline is Anchor plus Budget. It is zero, although Budget is not,
	// when the allocation has no CreateTime (it is not placed yet) or when
	// the sum is beyond what a Unix time in int64 nanoseconds can hold (the
	// year 2262): such a deadline can never be reached, and a wrapped one
	// would lie in the past.
	Deadline time.Time
	// Exceeded reports that the client stopped the allocation for its
	// max_run_duration: its ClientDescription says so. It holds even when
	// a later job version dropped the budget.
	Exceeded bool
}

// MaxRun returns the max_run_duration budget that applies to the
// allocation, and its deadline. The edge cases are decided here, once:
//
//   - no job, or no group of the allocation's name in it: no budget;
//   - a job type that does not allow one (AllowsMaxRunDuration: service
//     and system jobs), or a max_run_duration of zero or less: no budget,
//     although validation refuses such jobs, since older state or a
//     hand-written allocation may still hold one;
//   - a CreateTime of zero or less (not placed): the budget, no deadline;
//   - a CreateTime plus budget beyond int64 nanoseconds: the budget, no
//     deadline.
func (a *Allocation) MaxRun() MaxRun {
	if a == nil {
		return MaxRun{}
	}
	exceeded := a.ClientDescription == AllocTimeoutReasonMaxRunDuration
	tg := a.LookupTaskGroup()
	if tg == nil || tg.MaxRunDuration == nil || *tg.MaxRunDuration <= 0 || !AllowsMaxRunDuration(a.Job.Type) {
		return MaxRun{Exceeded: exceeded}
	}
	m := anchoredMaxRun(MaxRunScopeGroup, *tg.MaxRunDuration, a.CreateTime)
	m.Exceeded = exceeded
	return m
}

// anchoredMaxRun is budget counted from anchor, in Unix nanoseconds, with
// its deadline: the one place where a deadline is computed. A task's own
// limit is meant to come through here too, from the task's anchor.
func anchoredMaxRun(scope MaxRunScope, budget time.Duration, anchor int64) MaxRun {
	m := MaxRun{Scope: scope, Budget: budget}
	if anchor <= 0 {
		return m
	}
	m.Anchor = time.Unix(0, anchor)
	if int64(budget) > math.MaxInt64-anchor {
		return m
	}
	m.Deadline = time.Unix(0, anchor+int64(budget))
	return m
}

// HasDeadline reports whether the budget has a deadline.
func (m MaxRun) HasDeadline() bool { return !m.Deadline.IsZero() }

// Passed reports whether the deadline has come at now; false without a
// deadline.
func (m MaxRun) Passed(now time.Time) bool {
	return m.HasDeadline() && !now.Before(m.Deadline)
}

// Remaining is the time left before the deadline at now, never below
// zero; zero without a deadline.
func (m MaxRun) Remaining(now time.Time) time.Duration {
	if !m.HasDeadline() {
		return 0
	}
	return max(m.Deadline.Sub(now), 0)
}
