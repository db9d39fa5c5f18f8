package scheduler

import (
	"fmt"
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// BenchmarkBatchPlacement places 10,000 batch allocations on 5,000 nodes,
// as one job of 10,000 or as 100 jobs of 100, through the harness's
// planner, which commits each plan to a real state store. It reports
// placements per second including that commit, and placements per second
// of the scheduler's own work (the commit's time left out).
func BenchmarkBatchPlacement(b *testing.B) {
	const nodes, total = 5000, 10_000
	for _, jobs := range []int{1, 100} {
		b.Run(fmt.Sprintf("nodes=%d/jobs=%dx%d", nodes, jobs, total/jobs), func(b *testing.B) {
			var elapsed, committing time.Duration
			for b.Loop() {
				b.StopTimer()
				h := newHarness(b)
				h.checkFit = false
				h.addNodes(nodes, nil)
				var evals []*structs.Evaluation
				for range jobs {
					job := h.upsertJob(mockJob(structs.JobTypeBatch, total/jobs))
					eval := mockEval(job, structs.EvalTriggerJobRegister)
					must.NoError(b, h.store.UpsertEvals(h.nextIndex(), []*structs.Evaluation{eval}))
					evals = append(evals, eval)
				}
				timed := &timedPlanner{harness: h}
				b.StartTimer()

				start := time.Now()
				for _, eval := range evals {
					sched, err := NewScheduler(structs.JobTypeBatch, nil, h.store, timed)
					if err != nil {
						b.Fatal(err)
					}
					if err := sched.Process(eval); err != nil {
						b.Fatal(err)
					}
				}
				elapsed += time.Since(start)
				committing += timed.spent

				b.StopTimer()
				placed := 0
				for _, plan := range h.plans {
					placed += len(planAllocs(plan.NodeAllocation))
				}
				must.Eq(b, total, placed)
				b.StartTimer()
			}
			placements := float64(total * b.N)
			b.ReportMetric(placements/elapsed.Seconds(), "placements/s")
			b.ReportMetric(placements/(elapsed-committing).Seconds(), "sched-placements/s")
		})
	}
}

// timedPlanner measures the time the harness spends committing plans.
type timedPlanner struct {
	*harness
	spent time.Duration
}

func (p *timedPlanner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, State, error) {
	start := time.Now()
	defer func() { p.spent += time.Since(start) }()
	return p.harness.SubmitPlan(plan)
}
