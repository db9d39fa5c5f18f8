package structs

import (
	"math"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// budgetAlloc is an allocation of a job of jobType created at created (Unix
// nanoseconds) whose group "g" has max_run_duration d; nil d means none.
func budgetAlloc(jobType string, created int64, d *time.Duration) *Allocation {
	return &Allocation{
		ID:         "a1",
		TaskGroup:  "g",
		CreateTime: created,
		Job: &Job{
			ID:         "j",
			Type:       jobType,
			TaskGroups: []*TaskGroup{{Name: "g", MaxRunDuration: d}},
		},
	}
}

func TestAllocation_MaxRun(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	c := created.UnixNano()
	ten := 10 * time.Second
	// The budget left before int64 Unix nanoseconds run out.
	edge := time.Duration(math.MaxInt64 - c)
	over := edge + 1
	zero, negative := time.Duration(0), -time.Second

	cases := []struct {
		name  string
		alloc *Allocation
		want  MaxRun
	}{
		{name: "batch", alloc: budgetAlloc(JobTypeBatch, c, &ten), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: ten, Anchor: time.Unix(0, c), Deadline: time.Unix(0, c).Add(ten),
		}},
		{name: "sysbatch", alloc: budgetAlloc(JobTypeSysbatch, c, &ten), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: ten, Anchor: time.Unix(0, c), Deadline: time.Unix(0, c).Add(ten),
		}},
		{name: "service job: not allowed", alloc: budgetAlloc(JobTypeService, c, &ten)},
		{name: "system job: not allowed", alloc: budgetAlloc(JobTypeSystem, c, &ten)},
		{name: "no max_run_duration", alloc: budgetAlloc(JobTypeBatch, c, nil)},
		{name: "zero duration", alloc: budgetAlloc(JobTypeBatch, c, &zero)},
		{name: "negative duration", alloc: budgetAlloc(JobTypeBatch, c, &negative)},
		{name: "no CreateTime: budget without a deadline", alloc: budgetAlloc(JobTypeBatch, 0, &ten), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: ten,
		}},
		{name: "negative CreateTime: budget without a deadline", alloc: budgetAlloc(JobTypeBatch, -1, &ten), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: ten,
		}},
		{name: "deadline at the last int64 nanosecond", alloc: budgetAlloc(JobTypeBatch, c, &edge), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: edge, Anchor: time.Unix(0, c), Deadline: time.Unix(0, math.MaxInt64),
		}},
		{name: "deadline beyond int64 nanoseconds: none, not wrapped", alloc: budgetAlloc(JobTypeBatch, c, &over), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: over, Anchor: time.Unix(0, c),
		}},
		{name: "largest duration", alloc: budgetAlloc(JobTypeBatch, c, new(time.Duration(math.MaxInt64))), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: math.MaxInt64, Anchor: time.Unix(0, c),
		}},
		{name: "nil job", alloc: &Allocation{TaskGroup: "g", CreateTime: c}},
		{name: "no such group", alloc: func() *Allocation {
			a := budgetAlloc(JobTypeBatch, c, &ten)
			a.TaskGroup = "other"
			return a
		}()},
		{name: "nil allocation", alloc: nil},
		{name: "exceeded", alloc: func() *Allocation {
			a := budgetAlloc(JobTypeBatch, c, &ten)
			a.ClientStatus, a.ClientDescription = AllocClientStatusComplete, AllocTimeoutReasonMaxRunDuration
			return a
		}(), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: ten, Anchor: time.Unix(0, c), Deadline: time.Unix(0, c).Add(ten), Exceeded: true,
		}},
		{name: "exceeded, then the budget dropped", alloc: func() *Allocation {
			a := budgetAlloc(JobTypeBatch, c, nil)
			a.ClientStatus, a.ClientDescription = AllocClientStatusComplete, AllocTimeoutReasonMaxRunDuration
			return a
		}(), want: MaxRun{Exceeded: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.alloc.MaxRun()
			must.Eq(t, tc.want, got)
			deadline, ok := tc.alloc.MaxRunDeadline()
			must.Eq(t, !tc.want.Deadline.IsZero(), ok)
			must.Eq(t, tc.want.Deadline, deadline)
		})
	}
}

func TestMaxRun_PassedAndRemaining(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := budgetAlloc(JobTypeBatch, created.UnixNano(), new(10*time.Second)).MaxRun()
	deadline := created.Add(10 * time.Second)

	cases := []struct {
		name      string
		m         MaxRun
		now       time.Time
		passed    bool
		remaining time.Duration
	}{
		{name: "at the anchor", m: m, now: created, remaining: 10 * time.Second},
		{name: "a nanosecond before", m: m, now: deadline.Add(-time.Nanosecond), remaining: time.Nanosecond},
		{name: "at the deadline", m: m, now: deadline, passed: true},
		{name: "after it", m: m, now: deadline.Add(time.Hour), passed: true},
		{name: "no budget", m: MaxRun{}, now: deadline},
		{name: "no deadline", m: MaxRun{Scope: MaxRunScopeGroup, Budget: time.Second}, now: deadline.Add(time.Hour)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.passed, tc.m.Passed(tc.now))
			must.Eq(t, tc.remaining, tc.m.Remaining(tc.now))
		})
	}
}

// taskBudgetAlloc is budgetAlloc with a task "t" whose own
// max_run_duration is own (nil: none), begun by its runner at begun (zero:
// not yet).
func taskBudgetAlloc(jobType string, created int64, group, own *time.Duration, begun time.Time) *Allocation {
	a := budgetAlloc(jobType, created, group)
	a.Job.TaskGroups[0].Tasks = []*Task{{Name: "t", MaxRunDuration: own}}
	a.TaskStates = map[string]*TaskState{"t": {State: TaskStateRunning, RunnerStartedAt: begun}}
	return a
}

func TestAllocation_TaskMaxRun(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	c := created.UnixNano()
	begun := created.Add(3 * time.Second)
	five := 5 * time.Second
	zero := time.Duration(0)
	edge := time.Duration(math.MaxInt64 - begun.UnixNano())

	cases := []struct {
		name  string
		alloc *Allocation
		task  string
		want  MaxRun
	}{
		{name: "batch", alloc: taskBudgetAlloc(JobTypeBatch, c, nil, &five, begun), task: "t", want: MaxRun{
			Scope: MaxRunScopeTask, Budget: five, Anchor: time.Unix(0, begun.UnixNano()), Deadline: time.Unix(0, begun.UnixNano()).Add(five),
		}},
		{name: "sysbatch", alloc: taskBudgetAlloc(JobTypeSysbatch, c, nil, &five, begun), task: "t", want: MaxRun{
			Scope: MaxRunScopeTask, Budget: five, Anchor: time.Unix(0, begun.UnixNano()), Deadline: time.Unix(0, begun.UnixNano()).Add(five),
		}},
		{name: "service job: not allowed", alloc: taskBudgetAlloc(JobTypeService, c, nil, &five, begun), task: "t"},
		{name: "no limit of its own", alloc: taskBudgetAlloc(JobTypeBatch, c, new(time.Hour), nil, begun), task: "t"},
		{name: "zero limit", alloc: taskBudgetAlloc(JobTypeBatch, c, nil, &zero, begun), task: "t"},
		{name: "not begun: budget without a deadline", alloc: taskBudgetAlloc(JobTypeBatch, c, nil, &five, time.Time{}), task: "t", want: MaxRun{
			Scope: MaxRunScopeTask, Budget: five,
		}},
		{name: "no state yet: budget without a deadline", alloc: func() *Allocation {
			a := taskBudgetAlloc(JobTypeBatch, c, nil, &five, begun)
			a.TaskStates = nil
			return a
		}(), task: "t", want: MaxRun{Scope: MaxRunScopeTask, Budget: five}},
		{name: "deadline beyond int64 nanoseconds: none", alloc: taskBudgetAlloc(JobTypeBatch, c, nil, new(edge+1), begun), task: "t", want: MaxRun{
			Scope: MaxRunScopeTask, Budget: edge + 1, Anchor: time.Unix(0, begun.UnixNano()),
		}},
		{name: "no such task", alloc: taskBudgetAlloc(JobTypeBatch, c, nil, &five, begun), task: "other"},
		{name: "nil allocation", alloc: nil, task: "t"},
		{name: "exceeded", alloc: func() *Allocation {
			a := taskBudgetAlloc(JobTypeBatch, c, nil, &five, begun)
			a.TaskStates["t"].MaxRunExceeded = true
			return a
		}(), task: "t", want: MaxRun{
			Scope: MaxRunScopeTask, Budget: five, Anchor: time.Unix(0, begun.UnixNano()), Deadline: time.Unix(0, begun.UnixNano()).Add(five), Exceeded: true,
		}},
		{name: "exceeded, then the limit dropped", alloc: func() *Allocation {
			a := taskBudgetAlloc(JobTypeBatch, c, nil, nil, begun)
			a.TaskStates["t"].MaxRunExceeded = true
			return a
		}(), task: "t", want: MaxRun{Exceeded: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, tc.alloc.TaskMaxRun(tc.task))
		})
	}
}

func TestAllocation_TaskDeadline(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := created.UnixNano()
	begun := created.Add(3 * time.Second)

	cases := []struct {
		name         string
		group, own   *time.Duration
		begun        time.Time
		wantScope    MaxRunScope
		wantDeadline time.Time
		wantBudget   time.Duration
	}{
		{name: "the task's own comes first", group: new(10 * time.Second), own: new(5 * time.Second), begun: begun,
			wantScope: MaxRunScopeTask, wantDeadline: begun.Add(5 * time.Second), wantBudget: 5 * time.Second},
		{name: "the group's comes first", group: new(10 * time.Second), own: new(8 * time.Second), begun: begun,
			wantScope: MaxRunScopeGroup, wantDeadline: created.Add(10 * time.Second), wantBudget: 10 * time.Second},
		{name: "a tie goes to the task", group: new(10 * time.Second), own: new(7 * time.Second), begun: begun,
			wantScope: MaxRunScopeTask, wantDeadline: created.Add(10 * time.Second), wantBudget: 7 * time.Second},
		{name: "the task's own only", own: new(5 * time.Second), begun: begun,
			wantScope: MaxRunScopeTask, wantDeadline: begun.Add(5 * time.Second), wantBudget: 5 * time.Second},
		{name: "the group's only", group: new(10 * time.Second), begun: begun,
			wantScope: MaxRunScopeGroup, wantDeadline: created.Add(10 * time.Second), wantBudget: 10 * time.Second},
		{name: "not begun: the group's deadline", group: new(10 * time.Second), own: new(time.Second),
			wantScope: MaxRunScopeGroup, wantDeadline: created.Add(10 * time.Second), wantBudget: 10 * time.Second},
		{name: "not begun, no group limit: the task's budget", own: new(time.Second),
			wantScope: MaxRunScopeTask, wantBudget: time.Second},
		{name: "none"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := taskBudgetAlloc(JobTypeBatch, c, tc.group, tc.own, tc.begun).TaskDeadline("t")
			must.Eq(t, tc.wantScope, got.Scope)
			must.Eq(t, tc.wantBudget, got.Budget)
			if tc.wantDeadline.IsZero() {
				must.False(t, got.HasDeadline())
			} else {
				must.True(t, got.Deadline.Equal(tc.wantDeadline), must.Sprintf("deadline %s, want %s", got.Deadline, tc.wantDeadline))
			}
		})
	}
}

func TestAllocation_TaskWarning(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := created.UnixNano()
	begun := created.Add(3 * time.Second)
	warning := &MaxRunWarning{Signal: "SIGUSR1", Before: 2 * time.Second}

	alloc := func(group, own *time.Duration, begun time.Time, w *MaxRunWarning) *Allocation {
		a := taskBudgetAlloc(JobTypeBatch, c, group, own, begun)
		a.Job.TaskGroups[0].Tasks[0].MaxRunWarning = w
		return a
	}
	cases := []struct {
		name   string
		alloc  *Allocation
		wantOK bool
		wantAt time.Time
	}{
		{name: "of the task's own deadline", alloc: alloc(nil, new(10*time.Second), begun, warning),
			wantOK: true, wantAt: begun.Add(8 * time.Second)},
		{name: "of the group's, the earlier", alloc: alloc(new(10*time.Second), new(time.Hour), begun, warning),
			wantOK: true, wantAt: created.Add(8 * time.Second)},
		{name: "a budget shorter than the lead: before the task began", alloc: alloc(nil, new(time.Second), begun, warning),
			wantOK: true, wantAt: begun.Add(-time.Second)},
		{name: "no warning", alloc: alloc(new(10*time.Second), nil, begun, nil)},
		{name: "no deadline yet", alloc: alloc(nil, new(10*time.Second), time.Time{}, warning)},
		{name: "no budget", alloc: alloc(nil, nil, begun, warning)},
		{name: "nil allocation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := tc.alloc.TaskWarning("t")
			must.Eq(t, tc.wantOK, ok)
			must.True(t, w.At.Equal(tc.wantAt), must.Sprintf("At %s, want %s", w.At, tc.wantAt))
			if ok {
				must.Eq(t, "SIGUSR1", w.Signal)
				must.Eq(t, 2*time.Second, w.Before)
				must.Eq(t, tc.alloc.TaskDeadline("t"), w.Deadline)
			}
		})
	}

	a := alloc(nil, new(10*time.Second), begun, warning)
	w, _ := a.TaskWarning("t")
	at := begun.Add(8 * time.Second)
	must.False(t, w.Due(at.Add(-time.Nanosecond)), must.Sprint("not yet"))
	must.True(t, w.Due(at))
	must.True(t, w.Due(at.Add(2*time.Second-time.Nanosecond)), must.Sprint("late, before the deadline"))
	must.False(t, w.Due(at.Add(2*time.Second)), must.Sprint("the deadline has come: too late"))
	a.TaskStates["t"].MaxRunWarnedAt = at
	w, _ = a.TaskWarning("t")
	must.Eq(t, at, w.SentAt)
	must.False(t, w.Due(at.Add(time.Second)), must.Sprint("sent once"))
}

func TestAllocation_MaxRunOutcome(t *testing.T) {
	a := budgetAlloc(JobTypeBatch, 1, new(time.Second))
	must.Eq(t, AllocClientStatusComplete, a.MaxRunOutcome(), must.Sprint("the default, as in Nomad"))
	a.Job.TaskGroups[0].MaxRunOutcome = MaxRunOutcomeComplete
	must.Eq(t, AllocClientStatusComplete, a.MaxRunOutcome())
	a.Job.TaskGroups[0].MaxRunOutcome = MaxRunOutcomeFailed
	must.Eq(t, AllocClientStatusFailed, a.MaxRunOutcome())
	a.TaskGroup = "other"
	must.Eq(t, AllocClientStatusComplete, a.MaxRunOutcome())
	must.Eq(t, AllocClientStatusComplete, (&Allocation{}).MaxRunOutcome())

	// An allocation a deadline stopped, failed, is still one it stopped.
	a = budgetAlloc(JobTypeBatch, 1, new(time.Second))
	a.ClientStatus, a.ClientDescription = AllocClientStatusFailed, AllocTimeoutReasonMaxRunDuration
	must.True(t, a.MaxRun().Exceeded)
}

func TestAllocation_MaxRunOverride(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := created.UnixNano()
	anchor := time.Unix(0, c)
	ten, twenty := 10*time.Second, 20*time.Second
	over := func(a *Allocation, budget, replaces time.Duration) *Allocation {
		a.MaxRunOverride = &MaxRunOverride{Budget: budget, Replaces: replaces}
		return a
	}
	cases := []struct {
		name  string
		alloc *Allocation
		want  MaxRun
	}{
		{name: "raised", alloc: over(budgetAlloc(JobTypeBatch, c, &ten), twenty, ten), want: MaxRun{
			Scope: MaxRunScopeAllocation, Budget: twenty, Anchor: anchor, Deadline: anchor.Add(twenty),
		}},
		{name: "lowered", alloc: over(budgetAlloc(JobTypeBatch, c, &twenty), ten, twenty), want: MaxRun{
			Scope: MaxRunScopeAllocation, Budget: ten, Anchor: anchor, Deadline: anchor.Add(ten),
		}},
		{name: "a group without a limit", alloc: over(budgetAlloc(JobTypeBatch, c, nil), ten, 0), want: MaxRun{
			Scope: MaxRunScopeAllocation, Budget: ten, Anchor: anchor, Deadline: anchor.Add(ten),
		}},
		{name: "a job update changed the group's limit: the update wins", alloc: over(budgetAlloc(JobTypeBatch, c, new(time.Minute)), twenty, ten), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: time.Minute, Anchor: anchor, Deadline: anchor.Add(time.Minute),
		}},
		{name: "a job update dropped the group's limit", alloc: over(budgetAlloc(JobTypeBatch, c, nil), twenty, ten)},
		{name: "not for a service job", alloc: over(budgetAlloc(JobTypeService, c, nil), twenty, 0)},
		{name: "a zero budget is none", alloc: over(budgetAlloc(JobTypeBatch, c, &ten), 0, ten), want: MaxRun{
			Scope: MaxRunScopeGroup, Budget: ten, Anchor: anchor, Deadline: anchor.Add(ten),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, tc.alloc.MaxRun())
			must.Eq(t, tc.want.Scope == MaxRunScopeAllocation, tc.alloc.MaxRunOverrideApplies())
		})
	}

	// The task's view follows: the changed deadline is the one it meets.
	a := over(taskBudgetAlloc(JobTypeBatch, c, &ten, new(time.Hour), created), twenty, ten)
	must.Eq(t, MaxRunScopeAllocation, a.TaskDeadline("t").Scope)
	must.Eq(t, anchor.Add(twenty), a.TaskDeadline("t").Deadline)
}
