package scheduler

import (
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestService_placesCountAndKeepsIt(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(100, nil)
	job := h.runJob(mockJob(structs.JobTypeService, 30))
	must.SliceLen(t, 30, h.liveAllocs(job))
	for _, a := range h.allocs(job) {
		// Services score about log2(n) nodes.
		must.GreaterEq(t, 7, a.Metrics.NodesEvaluated)
	}

	// A service allocation that exits is replaced, under the same name.
	exited := h.allocs(job)[0]
	h.setClientStatus(structs.AllocClientStatusComplete, h.now, exited)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	placed := planAllocs(h.lastPlan().NodeAllocation)
	must.SliceLen(t, 1, placed)
	must.Eq(t, exited.Name, placed[0].Name)
	must.SliceLen(t, 30, h.liveAllocs(job))

	// Lost allocations are replaced too.
	down := h.liveAllocs(job)[0].NodeID
	for _, n := range nodes {
		if n.ID == down {
			h.setNodeStatus(n, structs.NodeStatusDown)
		}
	}
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	live := h.liveAllocs(job)
	must.SliceLen(t, 30, live)
	for _, a := range live {
		must.NotEq(t, down, a.NodeID)
	}
}

func TestService_spreadsAwayFromItsOwnAllocs(t *testing.T) {
	h := newHarness(t)
	h.addNodes(64, nil)
	job := h.runJob(mockJob(structs.JobTypeService, 32))
	// Bin packing alone would stack eight per node; the anti-affinity
	// penalty keeps a service group from piling up.
	for _, n := range perNode(h, job) {
		must.LessEq(t, 2, n)
	}
}

func TestService_drainedNodeIsMigrated(t *testing.T) {
	h := newHarness(t)
	h.addNodes(5, nil)
	job := h.runJob(mockJob(structs.JobTypeService, 4))
	drained := h.allocs(job)[0].NodeID
	must.NoError(t, h.store.UpdateNodeDrain(h.nextIndex(), drained, &structs.DrainStrategy{}, false, 1))
	h.markMigrate(allocsOn(h.allocs(job), drained)...)
	h.process(mockEval(job, structs.EvalTriggerNodeDrain))

	for _, s := range h.lastPlan().NodeUpdate[drained] {
		must.Eq(t, allocMigrating, s.DesiredDescription)
		must.NotEq(t, "", s.NextAllocation)
	}
	live := h.liveAllocs(job)
	must.SliceLen(t, 4, live)
	for _, a := range live {
		must.NotEq(t, drained, a.NodeID)
	}
}

func TestService_userStoppedAllocIsReplaced(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(mockJob(structs.JobTypeService, 2))
	victim := h.allocs(job)[0]
	must.NoError(t, h.store.UpdateAllocDesiredStatus(h.nextIndex(), []string{victim.ID}, structs.AllocDesiredStatusStop, "alloc was stopped by user"))
	h.process(mockEval(job, structs.EvalTriggerAllocStop))
	placed := planAllocs(h.lastPlan().NodeAllocation)
	must.SliceLen(t, 1, placed)
	must.Eq(t, victim.Name, placed[0].Name)
	must.SliceLen(t, 2, h.liveAllocs(job))
}

func TestNewScheduler(t *testing.T) {
	h := newHarness(t)
	for _, jobType := range []string{"batch", "service", "system", "sysbatch"} {
		s, err := NewScheduler(jobType, nil, h.store, h)
		must.NoError(t, err)
		must.NotNil(t, s)
	}
	_, err := NewScheduler("cron", nil, h.store, h)
	must.ErrorContains(t, err, `unknown job type "cron"`)
	_, err = NewScheduler("batch", nil, nil, h)
	must.Error(t, err)
	_, err = NewScheduler("batch", nil, h.store, nil)
	must.Error(t, err)
}

func TestProcess_jobNeverStored(t *testing.T) {
	h := newHarness(t)
	h.addNodes(2, nil)
	eval := mockEval(mockJob(structs.JobTypeBatch, 1), structs.EvalTriggerJobRegister)
	h.process(eval)
	must.SliceEmpty(t, h.plans)
	must.Eq(t, structs.EvalStatusComplete, h.lastUpdate().Status)
	must.Nil(t, h.lastUpdate().QueuedAllocations)
}

func TestProcess_periodicParentRunsNothing(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	parent := mockJob(structs.JobTypeBatch, 2)
	parent.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "* * * * *", SpecType: structs.PeriodicSpecCron}
	parent = h.runJob(parent)
	must.SliceEmpty(t, h.plans)
	must.SliceEmpty(t, h.allocs(parent))

	child := parent.Copy()
	child.ID = parent.ID + "/periodic-1700000000"
	child.ParentID = parent.ID
	child = h.runJob(child)
	must.SliceLen(t, 2, h.allocs(child))
}

func TestProcess_parameterizedParentRunsNothing(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	parent := mockJob(structs.JobTypeBatch, 2)
	parent.ParameterizedJob = &structs.ParameterizedJobConfig{Payload: structs.DispatchPayloadOptional}
	parent = h.runJob(parent)
	must.SliceEmpty(t, h.plans)
	must.SliceEmpty(t, h.allocs(parent))

	child := parent.Copy()
	child.ID = parent.ID + "/dispatch-1700000000-0123abcd"
	child.ParentID, child.Dispatched = parent.ID, true
	child = h.runJob(child)
	must.SliceLen(t, 2, h.allocs(child))

	// A dispatched child of a periodic parameterized job launches; it is
	// not placed itself.
	periodic := child.Copy()
	periodic.ID = parent.ID + "/dispatch-1700000001-0123abcd"
	periodic.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "* * * * *", SpecType: structs.PeriodicSpecCron}
	periodic = h.runJob(periodic)
	must.SliceEmpty(t, h.allocs(periodic))
}
