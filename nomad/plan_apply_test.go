package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/broker"
	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/structs"
)

func TestPlanApplier_PartialCommitThroughRaft(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	nodes := registerNodes(t, s, 2)
	job := testPeriodicJob("held") // periodic: no evaluation competes with the test's plan
	mustRegister(t, s, job)
	waitfor.True(t, "the periodic job to run", func() bool { return jobStatus(t, s, "held") == structs.JobStatusRunning })
	job, err := s.State().JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	_, err = s.NodeUpdateStatus(ctx, nodes[1].ID, structs.NodeStatusDown)
	must.NoError(t, err)

	plan := &structs.Plan{EvalID: structs.GenerateUUID(), Job: job}
	ok := fixture.PlanAlloc(job, nodes[0], 0, 100, 100)
	plan.AppendAlloc(ok)
	plan.AppendAlloc(fixture.PlanAlloc(job, nodes[1], 1, 100, 100))
	waitfor.True(t, "the plan queue", func() bool { return s.planQueue.Len() == 0 && s.evalBroker.Enabled() })
	pending, err := s.planQueue.Enqueue(plan)
	must.NoError(t, err)
	out := <-pending.Done
	must.NoError(t, out.Err)
	must.Positive(t, out.Result.AllocIndex)
	must.GreaterEq(t, out.Result.AllocIndex, out.Result.RefreshIndex)
	must.MapLen(t, 1, out.Result.NodeAllocation)

	stored, err := s.State().AllocByID(nil, ok.ID)
	must.NoError(t, err)
	must.NotNil(t, stored)
	must.Positive(t, stored.CreateTime)
	must.Eq(t, stored.CreateTime, stored.ModifyTime)
	must.Eq(t, job.JobModifyIndex, stored.Job.JobModifyIndex, must.Sprint("the plan's job is attached"))
	current, err := s.State().JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.True(t, stored.Job == current, must.Sprint("the stored version is shared, not copied"))
	must.Positive(t, s.PlanApplyStats().Count)
}

// The applier keeps the last plan it committed while it waits for the
// next; once the entry is applied the state holds its allocations, and
// the plan must not hold them a second time.
func TestCommitPlan_forgetsItsAllocationsOnceApplied(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "plan-forgets"))
	waitForLeader(t, s)
	job := testJob("forgotten")
	mustRegister(t, s, job)
	stored, err := s.State().JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	node := registerNodes(t, s, 1)[0]

	alloc := fixture.PlanAlloc(stored, node, 0, 100, 64)
	plan := &structs.Plan{EvalID: alloc.EvalID, Job: stored}
	plan.AppendAlloc(alloc)
	result := &structs.PlanResult{NodeAllocation: plan.NodeAllocation}
	pending := &broker.PendingPlan{Plan: plan, Done: make(chan broker.PlanOutcome, 1)}

	inflight := s.commitPlan(pending, result, false, time.Now())
	outcome := <-pending.Done
	must.NoError(t, outcome.Err)
	<-inflight.done
	must.Nil(t, inflight.allocs.Load(), must.Sprint("an applied plan still holds its allocations"))
	got, err := s.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.NotNil(t, got)
}
