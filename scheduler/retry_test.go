package scheduler

import (
	"errors"
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestProcess_partialCommitIsRetried(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(4, nil)
	// The first plan loses whatever it put on all but the last node.
	submits := 0
	h.reject = func(nodeID string) bool { return submits == 1 && nodeID != nodes[3].ID }
	counting := &countingPlanner{harness: h, submits: &submits}
	job := h.upsertJob(mockJob(structs.JobTypeBatch, 16))
	eval := mockEval(job, structs.EvalTriggerJobRegister)
	must.NoError(t, h.store.UpsertEvals(h.nextIndex(), []*structs.Evaluation{eval}))
	sched, err := newScheduler(job.Type, nil, h.store, counting, h.clock)
	must.NoError(t, err)
	must.NoError(t, sched.Process(eval))

	must.Eq(t, 2, submits)
	must.SliceLen(t, 16, h.liveAllocs(job))
	must.Eq(t, structs.EvalStatusComplete, h.lastUpdate().Status)
	must.SliceEmpty(t, h.overcommits)
}

func TestProcess_tooManyPartialCommitsGiveUp(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	h.reject = func(string) bool { return true }
	job := h.upsertJob(mockJob(structs.JobTypeService, 3))
	eval := mockEval(job, structs.EvalTriggerJobRegister)
	h.process(eval)

	must.SliceLen(t, maxAttempts(structs.JobTypeService), h.plans)
	updated := h.lastUpdate()
	must.Eq(t, structs.EvalStatusFailed, updated.Status)
	must.StrContains(t, updated.StatusDescription, "maximum attempts")
	retries := h.createdEvals(structs.EvalTriggerMaxPlans)
	must.SliceLen(t, 1, retries)
	must.Eq(t, retries[0].ID, updated.NextEval)
	must.Eq(t, structs.EvalStatusPending, retries[0].Status)
	must.Eq(t, eval.ID, retries[0].PreviousEval)
}

func TestProcess_followupIsCreatedOnceAcrossAttempts(t *testing.T) {
	h := newHarness(t)
	h.addNodes(2, nil)
	job := h.runJob(rescheduleJob())
	failed := h.allocs(job)[0]
	h.setClientStatus(structs.AllocClientStatusFailed, h.now, failed)
	// Every plan loses its changes on the failed allocation's node.
	h.reject = func(nodeID string) bool { return nodeID == failed.NodeID }
	before := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))

	must.SliceLen(t, before+maxAttempts(job.Type), h.plans)
	must.SliceLen(t, 1, h.createdEvals(structs.EvalTriggerRetryFailedAlloc))
	for _, plan := range h.plans[before:] {
		for _, a := range planAllocs(plan.NodeAllocation) {
			must.Eq(t, h.creates[0].ID, a.FollowupEvalID)
		}
	}
}

func TestProcess_plannerErrors(t *testing.T) {
	h := newHarness(t)
	h.addNodes(2, nil)
	job := h.upsertJob(mockJob(structs.JobTypeBatch, 1))
	sched, err := newScheduler(job.Type, nil, h.store, failingPlanner{h}, h.clock)
	must.NoError(t, err)
	err = sched.Process(mockEval(job, structs.EvalTriggerJobRegister))
	must.ErrorIs(t, err, errPlanner)
	must.ErrorContains(t, err, "submit plan")
	must.Error(t, sched.Process(nil))
}

// countingPlanner counts the plans submitted to the harness before it
// commits them.
type countingPlanner struct {
	*harness
	submits *int
}

func (c *countingPlanner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, State, error) {
	*c.submits++
	return c.harness.SubmitPlan(plan)
}

var errPlanner = errors.New("raft is gone")

type failingPlanner struct{ *harness }

func (failingPlanner) SubmitPlan(*structs.Plan) (*structs.PlanResult, State, error) {
	return nil, nil, errPlanner
}
