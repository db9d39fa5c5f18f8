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
