package allocrunner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// The job-wide budget and the job's finish-by instant are enforced on the
// same timer as the group's budget (the hook enforces
// structs.Allocation.MaxRun, the earliest deadline), at their exact
// instant.
func TestMaxRunDurationHook_JobAndFinishByDeadlines(t *testing.T) {
	cases := []struct {
		name string
		// setup gives the allocation, created now with a 30s group
		// budget, its job's limits; fireIn is when the kill is due.
		setup  func(a *structs.Allocation, now time.Time)
		scope  structs.MaxRunScope
		fireIn time.Duration
	}{
		{name: "job budget: what is left of it", setup: func(a *structs.Allocation, now time.Time) {
			a.Job.SubmitTime = now.Add(-50 * time.Second).UnixNano()
			a.Job.MaxRunDuration = new(60 * time.Second)
		}, scope: structs.MaxRunScopeJob, fireIn: 10 * time.Second},
		{name: "job budget spent: at once", setup: func(a *structs.Allocation, now time.Time) {
			a.Job.SubmitTime = now.Add(-2 * time.Minute).UnixNano()
			a.Job.MaxRunDuration = new(time.Minute)
		}, scope: structs.MaxRunScopeJob, fireIn: 0},
		{name: "finish-by cuts the group budget", setup: func(a *structs.Allocation, now time.Time) {
			a.Job.Deadline = &structs.JobDeadline{At: now.Add(5*time.Second + 3).UnixNano()}
		}, scope: structs.MaxRunScopeDeadline, fireIn: 5*time.Second + 3},
		{name: "group budget first", setup: func(a *structs.Allocation, now time.Time) {
			a.Job.SubmitTime = now.UnixNano()
			a.Job.MaxRunDuration = new(time.Minute)
			a.Job.Deadline = &structs.JobDeadline{At: now.Add(time.Hour).UnixNano()}
		}, scope: structs.MaxRunScopeGroup, fireIn: 30 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				alloc := boundedAlloc(start, 30*time.Second)
				tc.setup(alloc, start)
				must.Eq(t, tc.scope, alloc.MaxRun().Scope)
				runner := &fakeDeadlineRunner{}
				h, rec := newTestDeadlineHook(alloc, runner)
				must.NoError(t, h.Prerun())

				if tc.fireIn > 0 {
					time.Sleep(tc.fireIn - time.Nanosecond)
					synctest.Wait()
					must.SliceEmpty(t, runner.killTimes(), must.Sprint("not a nanosecond early"))
					time.Sleep(time.Nanosecond)
				}
				synctest.Wait()
				must.Eq(t, []time.Time{start.Add(tc.fireIn)}, runner.killTimes())
				must.Eq(t, 1, rec.counter(metricMaxRunExceeded))

				time.Sleep(time.Hour)
				must.Len(t, 1, runner.killTimes(), must.Sprint("it fires once"))
				must.NoError(t, h.Postrun())
			})
		})
	}
}
