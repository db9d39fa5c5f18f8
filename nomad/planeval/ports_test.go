package planeval

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/structs"
)

func withPort(a *structs.Allocation, label string, port int) *structs.Allocation {
	a.Networks = []*structs.NetworkResource{{Mode: "host", IP: "127.0.0.1", ReservedPorts: []structs.Port{{Label: label, Value: port}}}}
	return a
}

// TestEvaluatePlan_PortCollision: a placement whose host port another
// plan gave away meanwhile is rejected; stopping the holder in the same
// plan frees it.
func TestEvaluatePlan_PortCollision(t *testing.T) {
	f := newPlanFixture(t)
	a := f.nodes[0]
	running := withPort(fixture.PlanAlloc(f.job, a, 0, 100, 100), "http", 8080)
	f.index++
	must.NoError(t, f.store.UpsertAllocs(f.index, []*structs.Allocation{running}))

	plan := &structs.Plan{EvalID: "eval", Job: f.job}
	plan.AppendAlloc(withPort(fixture.PlanAlloc(f.job, a, 1, 100, 100), "web", 8080))
	_, rejected, err := Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.StrContains(t, rejected[a.ID], "network: port collision: port 8080")

	plan.AppendStoppedAlloc(running, "replaced", "")
	_, rejected, err = Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.MapEmpty(t, rejected)
}

func TestEvaluatePlan_ReservedPort(t *testing.T) {
	f := newPlanFixture(t)
	a := f.nodes[0].Copy()
	a.ReservedResources = &structs.NodeReservedResources{Networks: structs.NodeReservedNetworkResources{ReservedHostPorts: "22"}}
	f.index++
	must.NoError(t, f.store.UpsertNode(f.index, a))
	plan := &structs.Plan{EvalID: "eval", Job: f.job}
	plan.AppendAlloc(withPort(fixture.PlanAlloc(f.job, a, 0, 100, 100), "ssh", 22))
	_, rejected, err := Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.Eq(t, map[string]string{a.ID: "network: reserved port collision ssh=22"}, rejected)
}
