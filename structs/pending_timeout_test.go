package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestEvaluation_ExpirePending: each group's placements are given up at
// PendingSince plus its own max_pending_duration, exactly; a group
// without one waits on, keeping the evaluation blocked; once none waits,
// it is cancelled with the reason.
func TestEvaluation_ExpirePending(t *testing.T) {
	job := validJob("batch")
	job.TaskGroups = []*TaskGroup{
		{Name: "short", MaxPendingDuration: new(time.Second)},
		{Name: "long", MaxPendingDuration: new(time.Minute)},
		{Name: "forever"},
	}
	since := time.Unix(1000, 0)
	e := &Evaluation{
		ID: "e", Status: EvalStatusBlocked, CreateTime: since.Add(time.Millisecond).UnixNano(), PendingSince: since.UnixNano(),
		QueuedAllocations: map[string]int{"short": 2, "long": 1, "forever": 1},
		FailedTGAllocs:    map[string]*AllocMetric{"short": {}, "long": {}, "forever": {}},
	}
	must.Eq(t, map[string]time.Time{"short": since.Add(time.Second), "long": since.Add(time.Minute)}, e.PendingDeadlines(job))
	next, ok := e.NextPendingDeadline(job)
	must.True(t, ok)
	must.Eq(t, since.Add(time.Second), next)

	must.Nil(t, e.ExpirePending(job, since.Add(time.Second-1)))
	c := e.ExpirePending(job, since.Add(time.Second))
	must.Eq(t, EvalStatusBlocked, c.Status, must.Sprint("others still wait"))
	must.Eq(t, map[string]int{"short": 2}, c.PendingExpired)
	must.Eq(t, map[string]int{"short": 0, "long": 1, "forever": 1}, c.QueuedAllocations)
	must.MapNotContainsKey(t, c.FailedTGAllocs, "short")
	must.Eq(t, 2, e.QueuedAllocations["short"], must.Sprint("a copy"))
	must.Eq(t, []string{"a"}, c.PendingExpiredNames("short", []string{"a", "b", "c"}))
	must.Eq(t, []string{"a", "b"}, c.PendingExpiredNames("long", []string{"a", "b"}))

	next, _ = c.NextPendingDeadline(job)
	must.Eq(t, since.Add(time.Minute), next)
	c.QueuedAllocations["forever"] = 0
	d := c.ExpirePending(job, since.Add(time.Hour))
	must.Eq(t, EvalStatusCancelled, d.Status)
	must.Eq(t, EvalStatusDescPendingTimeout, d.StatusDescription)
	must.Eq(t, map[string]int{"short": 2, "long": 1}, d.PendingExpired)
	_, ok = d.NextPendingDeadline(job)
	must.False(t, ok, must.Sprint("a cancelled evaluation has no deadline"))

	old := &Evaluation{Status: EvalStatusBlocked, CreateTime: since.UnixNano(), QueuedAllocations: map[string]int{"short": 1}}
	next, _ = old.NextPendingDeadline(job)
	must.Eq(t, since.Add(time.Second), next, must.Sprint("without PendingSince, from CreateTime"))
}
