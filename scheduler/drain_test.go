package scheduler

import (
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// markMigrate sets DesiredTransition.Migrate on allocations, as the
// server's drainer does for the service allocations of a draining node.
func (h *harness) markMigrate(allocs ...*structs.Allocation) {
	h.t.Helper()
	yes := true
	transitions := make(map[string]structs.DesiredTransition, len(allocs))
	for _, a := range allocs {
		transitions[a.ID] = structs.DesiredTransition{Migrate: &yes}
	}
	must.NoError(h.t, h.store.UpdateAllocsDesiredTransitions(h.nextIndex(), transitions))
}

// drainNode starts a drain of the node, which also makes it ineligible.
func (h *harness) drainNode(nodeID string) {
	h.t.Helper()
	must.NoError(h.t, h.store.UpdateNodeDrain(h.nextIndex(), nodeID, &structs.DrainStrategy{}, false, 1))
}

// allocsOn returns the allocations placed on a node.
func allocsOn(allocs []*structs.Allocation, nodeID string) []*structs.Allocation {
	var out []*structs.Allocation
	for _, a := range allocs {
		if a.NodeID == nodeID {
			out = append(out, a)
		}
	}
	return out
}

// Batch work on a draining node is left to finish (or to run into its
// max_run_duration): an evaluation of its job that has nothing to do with
// the drain must not move it.
func TestDrain_batchAllocSurvivesUnrelatedEval(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeBatch, structs.JobTypeSysbatch} {
		t.Run(jobType, func(t *testing.T) {
			h := newHarness(t)
			h.addNodes(3, nil)
			job := h.runJob(mockJob(jobType, 1))
			before := h.liveAllocs(job)
			must.SliceNotEmpty(t, before)
			drained := before[0]
			h.drainNode(drained.NodeID)
			plans := len(h.plans)

			for _, trigger := range []string{structs.EvalTriggerNodeUpdate, structs.EvalTriggerJobRegister, structs.EvalTriggerAllocStop} {
				h.process(mockEval(job, trigger))
			}

			must.Eq(t, plans, len(h.plans), must.Sprint("no evaluation planned a change"))
			stored, err := h.store.AllocByID(nil, drained.ID)
			must.NoError(t, err)
			must.Eq(t, structs.AllocDesiredStatusRun, stored.DesiredStatus)
			must.Eq(t, "", stored.NextAllocation)
			must.SliceLen(t, len(before), h.liveAllocs(job))
		})
	}
}

// A service allocation on a draining node stays until the drainer marks it
// to migrate; then the next evaluation replaces it on another node.
func TestDrain_serviceAllocMarkedToMigrateIsReplaced(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(mockJob(structs.JobTypeService, 1))
	old := h.allocs(job)[0]
	h.drainNode(old.NodeID)

	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	must.SliceLen(t, 1, h.plans, must.Sprint("not marked to migrate yet: left alone"))

	h.markMigrate(old)
	h.process(mockEval(job, structs.EvalTriggerNodeDrain))
	plan := h.lastPlan()
	stops := plan.NodeUpdate[old.NodeID]
	must.SliceLen(t, 1, stops)
	must.Eq(t, old.ID, stops[0].ID)
	must.Eq(t, allocMigrating, stops[0].DesiredDescription)
	placed := planAllocs(plan.NodeAllocation)
	must.SliceLen(t, 1, placed)
	must.Eq(t, old.ID, placed[0].PreviousAllocation)
	must.Eq(t, old.Name, placed[0].Name)
	must.NotEq(t, old.NodeID, placed[0].NodeID)

	live := h.liveAllocs(job)
	must.SliceLen(t, 1, live)
	must.Eq(t, placed[0].ID, live[0].ID)
}

// A system allocation on a draining node is stopped by the drainer once
// the node's other work is gone, not by whichever evaluation comes first.
func TestDrain_systemAllocWaitsForMigrateMark(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(2, nil)
	job := h.runJob(mockJob(structs.JobTypeSystem, 1))
	h.drainNode(nodes[0].ID)

	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	must.SliceLen(t, 1, h.plans)
	must.MapLen(t, 2, perNode(h, job))

	h.markMigrate(allocsOn(h.allocs(job), nodes[0].ID)...)
	h.process(mockEval(job, structs.EvalTriggerNodeDrain))
	must.Eq(t, allocNodeTainted, h.lastPlan().NodeUpdate[nodes[0].ID][0].DesiredDescription)
	must.MapEmpty(t, h.lastPlan().NodeAllocation, must.Sprint("no new placement on a draining node"))
	counts := perNode(h, job)
	must.MapLen(t, 1, counts)
	must.MapContainsKey(t, counts, nodes[1].ID)
}
