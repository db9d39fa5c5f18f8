package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestPlan_AppendStoppedAlloc(t *testing.T) {
	stored := &Allocation{
		ID:            "a1",
		NodeID:        "n1",
		Job:           &Job{ID: "j"},
		DesiredStatus: AllocDesiredStatusRun,
		ClientStatus:  AllocClientStatusRunning,
	}
	plan := &Plan{}
	must.True(t, plan.IsNoOp())

	stopped := plan.AppendStoppedAlloc(stored, "alloc is lost since its node is down", AllocClientStatusLost)
	stopped.NextAllocation = "a2"

	must.False(t, plan.IsNoOp())
	must.SliceLen(t, 1, plan.NodeUpdate["n1"])
	got := plan.NodeUpdate["n1"][0]
	must.Eq(t, "a1", got.ID)
	must.Nil(t, got.Job)
	must.Eq(t, AllocDesiredStatusStop, got.DesiredStatus)
	must.Eq(t, "alloc is lost since its node is down", got.DesiredDescription)
	must.Eq(t, AllocClientStatusLost, got.ClientStatus)
	must.Eq(t, "a2", got.NextAllocation)

	// The stored allocation is untouched.
	must.NotNil(t, stored.Job)
	must.Eq(t, AllocDesiredStatusRun, stored.DesiredStatus)
	must.Eq(t, AllocClientStatusRunning, stored.ClientStatus)
	must.Eq(t, "", stored.NextAllocation)
}

func TestPlan_AppendStoppedAlloc_keepsClientStatus(t *testing.T) {
	plan := &Plan{}
	plan.AppendStoppedAlloc(&Allocation{ID: "a1", NodeID: "n1", ClientStatus: AllocClientStatusRunning}, "stop", "")
	must.Eq(t, AllocClientStatusRunning, plan.NodeUpdate["n1"][0].ClientStatus)
}

func TestPlanResult_FullCommit(t *testing.T) {
	plan := &Plan{}
	plan.AppendAlloc(&Allocation{ID: "a1", NodeID: "n1"})
	plan.AppendAlloc(&Allocation{ID: "a2", NodeID: "n2"})
	plan.AppendStoppedAlloc(&Allocation{ID: "a0", NodeID: "n1"}, "stop", "")

	cases := []struct {
		name     string
		result   *PlanResult
		full     bool
		expected int
		actual   int
	}{
		{"nil result", nil, false, 3, 0},
		{"everything", &PlanResult{NodeUpdate: plan.NodeUpdate, NodeAllocation: plan.NodeAllocation}, true, 3, 3},
		{"one node rejected", &PlanResult{
			NodeUpdate:     plan.NodeUpdate,
			NodeAllocation: map[string][]*Allocation{"n1": plan.NodeAllocation["n1"]},
		}, false, 3, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			full, expected, actual := tc.result.FullCommit(plan)
			must.Eq(t, tc.full, full)
			must.Eq(t, tc.expected, expected)
			must.Eq(t, tc.actual, actual)
		})
	}
}

func TestPlan_IsNoOp_emptyMaps(t *testing.T) {
	plan := &Plan{NodeUpdate: map[string][]*Allocation{"n1": nil}, NodeAllocation: map[string][]*Allocation{}}
	must.True(t, plan.IsNoOp())
}
