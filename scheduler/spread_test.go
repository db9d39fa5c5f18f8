package scheduler

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// racksOf counts a job's allocations per rack (mockNode's meta.rack).
func racksOf(allocs []*structs.Allocation) map[string]int {
	out := map[string]int{}
	for _, a := range allocs {
		out[rackOf(a.NodeName)]++
	}
	return out
}

// TestSpread_Even: a spread without targets places the group's
// allocations evenly over the values, where bin packing alone would fill
// nodes first.
func TestSpread_Even(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeBatch, structs.JobTypeService} {
		t.Run(jobType, func(t *testing.T) {
			for range 5 {
				h := newHarness(t)
				h.addNodes(8, nil) // two nodes per rack r0..r3
				job := mockJob(jobType, 8)
				job.TaskGroups[0].Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 50}}
				job = h.runJob(job)
				must.Eq(t, map[string]int{"r0": 2, "r1": 2, "r2": 2, "r3": 2}, racksOf(h.allocs(job)))
			}
		})
	}
}

// TestSpread_Targets: a spread with targets places the group's
// allocations by their percentages, and none on a value no target names
// while another can take them.
func TestSpread_Targets(t *testing.T) {
	for range 5 {
		h := newHarness(t)
		h.addNodes(8, nil)
		job := mockJob(structs.JobTypeBatch, 8)
		job.Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 100, SpreadTarget: []*structs.SpreadTarget{
			{Value: "r0", Percent: 75}, {Value: "r1", Percent: 25},
		}}}
		job = h.runJob(job)
		must.Eq(t, map[string]int{"r0": 6, "r1": 2}, racksOf(h.allocs(job)))
	}
}

// TestSpread_CountsExistingAllocations: a later placement counts the
// allocations already running: scaling up evens out from where they are.
func TestSpread_CountsExistingAllocations(t *testing.T) {
	h := newHarness(t)
	h.addNodes(4, nil)
	job := mockJob(structs.JobTypeService, 2)
	job.TaskGroups[0].Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 50}}
	job = h.runJob(job)
	first := racksOf(h.allocs(job))
	must.MapLen(t, 2, first)

	job = h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Count = 4 })
	h.process(mockEval(job, structs.EvalTriggerJobRegister))
	must.Eq(t, map[string]int{"r0": 1, "r1": 1, "r2": 1, "r3": 1}, racksOf(h.liveAllocs(job)))
}

func TestEvenSpreadBoost(t *testing.T) {
	for _, tc := range []struct {
		used  map[string]int
		value string
		want  float64
	}{
		{map[string]int{}, "a", 0},
		{map[string]int{"a": 1, "b": 1}, "c", 1},
		{map[string]int{"a": 1, "b": 1}, "a", -1},
		{map[string]int{"a": 2, "b": 1}, "a", -1},
		{map[string]int{"a": 4, "b": 2}, "b", 0.5},
		{map[string]int{"a": 2, "b": 0}, "b", 1},
	} {
		must.Eq(t, tc.want, evenSpreadBoost(tc.used, tc.value), must.Sprintf("%v %s", tc.used, tc.value))
	}
}
