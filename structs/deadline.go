package structs

import (
	"math"
	"time"
)

// AllocTimeoutReasonMaxRunDuration is the ClientDescription of an allocation,
// and the DisplayMessage of each Killing event, when a group outlives its
// max_run_duration.
const AllocTimeoutReasonMaxRunDuration = "allocation exceeded max_run_duration"

// TaskTimeoutReasonMaxRunDuration is the DisplayMessage of the Killing
// event of a task that outlives its own max_run_duration.
const TaskTimeoutReasonMaxRunDuration = "task exceeded max_run_duration"

// MaxRunScope says where a max_run_duration budget comes from.
type MaxRunScope string

// MaxRunScopeGroup is the task group's max_run_duration, counted from the
// allocation's CreateTime.
const MaxRunScopeGroup MaxRunScope = "group"

// MaxRunScopeTask is a task's own max_run_duration, counted from the
// task's TaskState.RunnerStartedAt.
const MaxRunScopeTask MaxRunScope = "task"

// MaxRunScopeAllocation is a budget changed for the allocation alone
// (Allocation.MaxRunOverride), counted from its CreateTime.
const MaxRunScopeAllocation MaxRunScope = "allocation"

// MaxRunScopeDispatch is the max_run_duration the dispatch that created
// the job gave every group (Job.DispatchMaxRunDuration), counted from
// the allocation's CreateTime as the group's.
const MaxRunScopeDispatch MaxRunScope = "dispatch"

// MaxRunScopeJob is the job's own max_run_duration (Job.MaxRunDuration),
// one budget over every group, attempt and reschedule of the job version,
// counted from the job's SubmitTime: a replacement inherits what is left.
const MaxRunScopeJob MaxRunScope = "job"

// MaxRunScopeDeadline is the job's finish-by instant (Job.Deadline): the
// budget is what is left from the allocation's CreateTime until then. It
// applies when it comes before every other deadline: a placement started
// with its budget cut by the group's min_run_duration, or one that the
// plan took longer to commit than the scheduler foresaw.
const MaxRunScopeDeadline MaxRunScope = "deadline"

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
// allocation, and its deadline: of the budgets that apply, the one whose
// deadline comes first. The edge cases are decided here, once:
//
//   - no job, or no group of the allocation's name in it: no budget;
//   - a job type that does not allow one (AllowsMaxRunDuration: service
//     and system jobs), or a max_run_duration of zero or less: no budget,
//     although validation refuses such jobs, since older state or a
//     hand-written allocation may still hold one;
//   - the allocation's own budget is its group's (scope group, or
//     dispatch when a dispatch set it), or the change made for the
//     allocation (MaxRunOverride) as long as the group's is still the
//     one it was made over; counted from CreateTime;
//   - the job's budget (scope job) counts from the job's SubmitTime, so
//     it has a deadline before the allocation is placed; the job's
//     finish-by instant (scope deadline) is the deadline itself;
//   - the earliest deadline wins; on a tie the allocation's own budget,
//     then the job's, then the finish-by instant;
//   - a CreateTime of zero or less (not placed): the allocation's budget
//     has no deadline, and gives way to the job's, which has one; with
//     neither, the budget without a deadline;
//   - an anchor plus budget beyond int64 nanoseconds: no deadline.
func (a *Allocation) MaxRun() MaxRun {
	if a == nil {
		return MaxRun{}
	}
	exceeded := exceededMaxRun(a.ClientDescription)
	tg := a.LookupTaskGroup()
	if tg == nil || !AllowsMaxRunDuration(a.Job.Type) {
		return MaxRun{Exceeded: exceeded}
	}
	m := earliestMaxRun(a.groupMaxRun(tg), a.Job.jobMaxRun(), a.Job.finishByMaxRun(a.CreateTime))
	m.Exceeded = exceeded
	return m
}

// groupMaxRun is the allocation's own budget: its group's, the dispatch's
// or its own change, counted from its CreateTime.
func (a *Allocation) groupMaxRun(tg *TaskGroup) MaxRun {
	scope, budget := MaxRunScopeGroup, tg.MaxRunBudget()
	if d := a.Job.DispatchMaxRunDuration; d != nil && *d == budget {
		scope = MaxRunScopeDispatch
	}
	if a.MaxRunOverrideApplies() {
		scope, budget = MaxRunScopeAllocation, a.MaxRunOverride.Budget
	}
	if budget <= 0 {
		return MaxRun{}
	}
	return anchoredMaxRun(scope, budget, a.CreateTime)
}

// jobMaxRun is the job's own budget counted from its SubmitTime; the zero
// MaxRun when it has none.
func (j *Job) jobMaxRun() MaxRun {
	if j.MaxRunDuration == nil || *j.MaxRunDuration <= 0 {
		return MaxRun{}
	}
	return anchoredMaxRun(MaxRunScopeJob, *j.MaxRunDuration, j.SubmitTime)
}

// finishByMaxRun is the job's finish-by instant as a budget counted from
// created: the time left until it, never below zero (an allocation
// created past it has a deadline already passed). The zero MaxRun when
// the job has no instant to finish by, or created is not set.
func (j *Job) finishByMaxRun(created int64) MaxRun {
	at, ok := j.FinishBy()
	if !ok || created <= 0 {
		return MaxRun{}
	}
	return MaxRun{
		Scope:    MaxRunScopeDeadline,
		Budget:   max(time.Duration(at.UnixNano()-created), 0),
		Anchor:   time.Unix(0, created),
		Deadline: at,
	}
}

// earliestMaxRun is, of the budgets given in order of precedence, the one
// whose deadline comes first (the earlier given on a tie); without any
// deadline, the first that has a budget.
func earliestMaxRun(ms ...MaxRun) MaxRun {
	var best MaxRun
	for _, m := range ms {
		switch {
		case m.Scope == "":
		case m.HasDeadline() && (!best.HasDeadline() || m.Deadline.Before(best.Deadline)):
			best = m
		case best.Scope == "":
			best = m
		}
	}
	return best
}

// MaxRunOverrideApplies reports whether the allocation's MaxRunOverride is
// in force: it is set, positive, for a job type that allows a budget, and
// its group's max_run_duration is still the one it was made over.
func (a *Allocation) MaxRunOverrideApplies() bool {
	if a == nil || a.MaxRunOverride == nil || a.MaxRunOverride.Budget <= 0 {
		return false
	}
	tg := a.LookupTaskGroup()
	return tg != nil && AllowsMaxRunDuration(a.Job.Type) && tg.MaxRunBudget() == a.MaxRunOverride.Replaces
}

// MaxRunBudget is the group's max_run_duration, zero when it has none
// (or one of zero or less, which validation refuses).
func (tg *TaskGroup) MaxRunBudget() time.Duration {
	if tg.MaxRunDuration == nil || *tg.MaxRunDuration <= 0 {
		return 0
	}
	return *tg.MaxRunDuration
}

// TaskMaxRun returns the task's own max_run_duration budget and its
// deadline, counted from the task's RunnerStartedAt. The edge cases are
// those of MaxRun, with the task's anchor for CreateTime: no task of that
// name, or no max_run_duration of its own, is no budget; a task whose
// runner has not begun it yet has the budget and no deadline. Exceeded
// says that the client killed the task for it.
func (a *Allocation) TaskMaxRun(task string) MaxRun {
	if a == nil {
		return MaxRun{}
	}
	ts := a.TaskStates[task]
	exceeded := ts != nil && ts.MaxRunExceeded
	tg := a.LookupTaskGroup()
	if tg == nil || !AllowsMaxRunDuration(a.Job.Type) {
		return MaxRun{Exceeded: exceeded}
	}
	t := tg.LookupTask(task)
	if t == nil || t.MaxRunDuration == nil || *t.MaxRunDuration <= 0 {
		return MaxRun{Exceeded: exceeded}
	}
	var anchor int64
	if ts != nil && !ts.RunnerStartedAt.IsZero() {
		anchor = ts.RunnerStartedAt.UnixNano()
	}
	m := anchoredMaxRun(MaxRunScopeTask, *t.MaxRunDuration, anchor)
	m.Exceeded = exceeded
	return m
}

// TaskDeadline returns the budget whose deadline the task meets first: its
// own (TaskMaxRun) or the allocation's (MaxRun), whichever has the earlier
// deadline; on a tie, the task's. A budget without a deadline yet (a task
// not begun) gives way to one with a deadline; when neither has one, the
// task's own budget is returned if it has one. The zero value means that
// no budget applies to the task (but for Exceeded, which a dropped budget
// keeps, as MaxRun's does).
func (a *Allocation) TaskDeadline(task string) MaxRun {
	own, alloc := a.TaskMaxRun(task), a.MaxRun()
	switch {
	case own.HasDeadline() && alloc.HasDeadline():
		if alloc.Deadline.Before(own.Deadline) {
			return alloc
		}
		return own
	case own.HasDeadline():
		return own
	case alloc.HasDeadline():
		return alloc
	case own.Budget > 0:
		return own
	case alloc.Budget > 0 || !own.Exceeded:
		return alloc
	}
	return own
}

// TaskWarning is a task's max_run_warning as it applies: the signal, and
// when it is due.
type TaskWarning struct {
	// Signal and Before are the task's max_run_warning.
	Signal string
	Before time.Duration
	// Deadline is the deadline warned of: the task's TaskDeadline.
	Deadline MaxRun
	// At is Deadline's deadline less Before: when the signal is due. It
	// may lie before the task began, when the budget is shorter than
	// Before (a per-task or per-allocation change); the signal is then
	// due at once.
	At time.Time
	// SentAt is when the client sent the signal; zero while it has not.
	SentAt time.Time
}

// Due reports whether the warning is to be sent at now: its moment has
// come, its deadline has not, and it has not been sent.
func (w TaskWarning) Due(now time.Time) bool {
	return !w.At.IsZero() && !now.Before(w.At) && !w.Deadline.Passed(now) && w.SentAt.IsZero()
}

// TaskWarning returns when the task's max_run_warning is due: Before ahead
// of the first deadline that applies to the task (TaskDeadline), its own
// or the allocation's, so an in-place change of either moves it. ok is
// false when the task has no max_run_warning, or no deadline applies to
// it yet.
func (a *Allocation) TaskWarning(task string) (w TaskWarning, ok bool) {
	if a == nil {
		return TaskWarning{}, false
	}
	tg := a.LookupTaskGroup()
	if tg == nil {
		return TaskWarning{}, false
	}
	t := tg.LookupTask(task)
	if t == nil || t.MaxRunWarning == nil {
		return TaskWarning{}, false
	}
	w = TaskWarning{Signal: t.MaxRunWarning.Signal, Before: t.MaxRunWarning.Before, Deadline: a.TaskDeadline(task)}
	if ts := a.TaskStates[task]; ts != nil {
		w.SentAt = ts.MaxRunWarnedAt
	}
	if !w.Deadline.HasDeadline() {
		return w, false
	}
	w.At = w.Deadline.Deadline.Add(-w.Before)
	return w, true
}

// MaxRunOutcome is the client status of the allocation once a deadline
// stopped it: its group's max_run_outcome, MaxRunOutcomeComplete when the
// group sets none (or is not found).
func (a *Allocation) MaxRunOutcome() string {
	if tg := a.LookupTaskGroup(); tg != nil && tg.MaxRunOutcome == MaxRunOutcomeFailed {
		return AllocClientStatusFailed
	}
	return AllocClientStatusComplete
}

// anchoredMaxRun is budget counted from anchor, in Unix nanoseconds, with
// its deadline: the one place where a deadline is computed, for the
// allocation's budget and for each task's.
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
