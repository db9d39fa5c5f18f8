package scheduler

import (
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// perNode counts the job's live allocations per node.
func perNode(h *harness, job *structs.Job) map[string]int {
	out := make(map[string]int)
	for _, a := range h.liveAllocs(job) {
		out[a.NodeID]++
	}
	return out
}

func TestSystem_onePerEligibleNode(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeSystem, structs.JobTypeSysbatch} {
		t.Run(jobType, func(t *testing.T) {
			h := newHarness(t)
			nodes := h.addNodes(50, func(i int, n *structs.Node) {
				if i%10 == 0 {
					n.Attributes["kernel.name"] = "darwin"
				}
			})
			h.setNodeStatus(nodes[1], structs.NodeStatusInit)
			job := mockJob(jobType, 1)
			job.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
			job = h.runJob(job)

			counts := perNode(h, job)
			must.MapLen(t, 44, counts)
			for i, n := range nodes {
				if i%10 == 0 || i == 1 {
					must.MapNotContainsKey(t, counts, n.ID)
				} else {
					must.Eq(t, 1, counts[n.ID])
				}
			}
			for _, a := range h.allocs(job) {
				must.Eq(t, job.ID+".g[0]", a.Name)
			}
			eval := h.lastUpdate()
			must.MapEmpty(t, eval.FailedTGAllocs, must.Sprint("nodes the job cannot run on are not failures"))
			must.Eq(t, map[string]int{"g": 0}, eval.QueuedAllocations)
			must.SliceEmpty(t, h.createdEvals(structs.EvalTriggerQueuedAllocs))

			// Another evaluation changes nothing.
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
			must.SliceLen(t, 1, h.plans)
		})
	}
}

func TestSystem_nodeThatJoinsLaterGetsAnAlloc(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeSystem, structs.JobTypeSysbatch} {
		t.Run(jobType, func(t *testing.T) {
			h := newHarness(t)
			h.addNodes(20, nil)
			job := h.runJob(mockJob(jobType, 1))
			must.MapLen(t, 20, perNode(h, job))
			if jobType == structs.JobTypeSysbatch {
				h.setClientStatus(structs.AllocClientStatusComplete, h.now, h.allocs(job)...)
			}

			joined := h.addNodes(1, nil)[0]
			eval := mockEval(job, structs.EvalTriggerNodeUpdate)
			eval.NodeID = joined.ID
			h.process(eval)

			placed := planAllocs(h.lastPlan().NodeAllocation)
			must.SliceLen(t, 1, placed)
			must.Eq(t, joined.ID, placed[0].NodeID)
			must.MapEmpty(t, h.lastPlan().NodeUpdate)
			must.SliceLen(t, 21, h.allocs(job))
		})
	}
}

func TestSysbatch_finishedAllocsAreNotRerun(t *testing.T) {
	h := newHarness(t)
	h.addNodes(6, nil)
	job := mockJob(structs.JobTypeSysbatch, 1)
	maxRun := time.Minute
	job.TaskGroups[0].MaxRunDuration = &maxRun
	job = h.runJob(job)
	allocs := h.allocs(job)
	h.setClientStatus(structs.AllocClientStatusComplete, h.now, allocs[0], allocs[1])
	h.setClientStatusDesc(structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, h.now, allocs[2], allocs[3])
	h.setClientStatus(structs.AllocClientStatusFailed, h.now, allocs[4], allocs[5])

	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceLen(t, 1, h.plans)
	must.SliceLen(t, 6, h.allocs(job))
	must.SliceEmpty(t, h.createdEvals(structs.EvalTriggerRetryFailedAlloc))

	// A new version runs everywhere again.
	next := h.updateJob(job, func(j *structs.Job) { j.Meta = map[string]string{"run": "2"} })
	h.process(mockEval(next, structs.EvalTriggerJobRegister))
	must.MapLen(t, 6, perNode(h, next))
}

func TestSystem_failedAllocIsReplacedOnItsNode(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(mockJob(structs.JobTypeSystem, 1))
	failed := h.allocs(job)[0]
	h.setClientStatus(structs.AllocClientStatusFailed, h.now, failed)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	placed := planAllocs(h.lastPlan().NodeAllocation)
	must.SliceLen(t, 1, placed)
	must.Eq(t, failed.NodeID, placed[0].NodeID)
	must.Nil(t, placed[0].RescheduleTracker)
}

func TestSystem_nodeDownDrainedOrNoLongerFeasible(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(10, nil)
	job := h.runJob(mockJob(structs.JobTypeSystem, 1))
	must.MapLen(t, 10, perNode(h, job))

	h.setNodeStatus(nodes[0], structs.NodeStatusDown)
	must.NoError(t, h.store.UpdateNodeDrain(h.nextIndex(), nodes[1].ID, &structs.DrainStrategy{}, false, 1))
	h.markMigrate(allocsOn(h.allocs(job), nodes[1].ID)...)
	must.NoError(t, h.store.UpdateNodeDrain(h.nextIndex(), nodes[2].ID, &structs.DrainStrategy{IgnoreSystemJobs: true}, false, 1))
	must.NoError(t, h.store.UpdateNodeEligibility(h.nextIndex(), nodes[3].ID, structs.NodeSchedulingIneligible, 1))
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))

	plan := h.lastPlan()
	must.MapEmpty(t, plan.NodeAllocation, must.Sprint("system allocations are never moved"))
	must.MapLen(t, 2, plan.NodeUpdate)
	lost := plan.NodeUpdate[nodes[0].ID][0]
	must.Eq(t, structs.AllocClientStatusLost, lost.ClientStatus)
	must.Eq(t, allocLost, lost.DesiredDescription)
	must.Eq(t, allocNodeTainted, plan.NodeUpdate[nodes[1].ID][0].DesiredDescription)
	counts := perNode(h, job)
	must.MapLen(t, 8, counts)
	must.MapContainsKey(t, counts, nodes[2].ID)
	must.MapContainsKey(t, counts, nodes[3].ID)

	// A constraint that some nodes no longer meet stops their allocations.
	next := h.updateJob(job, func(j *structs.Job) {
		j.Constraints = []*structs.Constraint{{LTarget: "${meta.rack}", RTarget: "r0", Operand: "!="}}
	})
	h.process(mockEval(next, structs.EvalTriggerJobRegister))
	for nodeID := range perNode(h, next) {
		node, err := h.store.NodeByID(nil, nodeID)
		must.NoError(t, err)
		must.NotEq(t, "r0", node.Meta["rack"])
	}
	for _, s := range planAllocs(h.lastPlan().NodeUpdate) {
		must.Eq(t, allocNotNeeded, s.DesiredDescription)
	}
}

func TestSystem_exhaustedNodeIsAFailedPlacement(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeSystem, structs.JobTypeSysbatch} {
		t.Run(jobType, func(t *testing.T) { testSystemExhaustion(t, jobType) })
	}
}

func testSystemExhaustion(t *testing.T, jobType string) {
	h := newHarness(t)
	nodes := h.addNodes(5, nil)
	hog := mockJob(structs.JobTypeBatch, 1)
	hog.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: 3900, MemoryMB: 256}
	hog.Constraints = []*structs.Constraint{{LTarget: "${node.unique.id}", RTarget: nodes[2].ID, Operand: "="}}
	h.runJob(hog)

	job := h.runJob(mockJob(jobType, 1))
	must.MapLen(t, 4, perNode(h, job))
	eval := h.lastUpdate()
	must.Eq(t, map[string]int{"g": 1}, eval.QueuedAllocations)
	m := eval.FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, 1, m.NodesExhausted)
	must.Eq(t, map[string]int{dimensionCPU: 1}, m.DimensionExhausted)
	must.Eq(t, 0, m.CoalescedFailures)
	blocked := h.createdEvals(structs.EvalTriggerQueuedAllocs)
	must.SliceLen(t, 1, blocked)

	// Once the room is freed the blocked evaluation places it.
	h.setClientStatus(structs.AllocClientStatusComplete, h.now, h.allocs(hog)...)
	h.process(blocked[0])
	must.MapLen(t, 5, perNode(h, job))
	must.Eq(t, structs.EvalStatusComplete, h.lastUpdate().Status)
}

func TestSystem_stopStopsEverything(t *testing.T) {
	h := newHarness(t)
	h.addNodes(7, nil)
	job := h.runJob(mockJob(structs.JobTypeSysbatch, 1))
	h.setClientStatus(structs.AllocClientStatusComplete, h.now, h.allocs(job)[0])
	stopped := h.updateJob(job, func(j *structs.Job) { j.Stop = true })
	h.process(mockEval(stopped, structs.EvalTriggerJobDeregister))
	must.SliceLen(t, 6, planAllocs(h.lastPlan().NodeUpdate))
	must.SliceEmpty(t, h.liveAllocs(job))
}

func TestSystem_duplicateOnNodeIsStopped(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(1, nil)
	job := h.runJob(mockJob(structs.JobTypeSystem, 1))
	dup := h.allocs(job)[0].Copy()
	dup.ID = mockID()
	must.NoError(t, h.store.UpsertAllocs(h.nextIndex(), []*structs.Allocation{dup}))
	must.Eq(t, 2, perNode(h, job)[nodes[0].ID])

	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	must.Eq(t, 1, perNode(h, job)[nodes[0].ID])
}
