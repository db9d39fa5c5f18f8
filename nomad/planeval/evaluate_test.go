package planeval

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// planFixture is a store with a job and three fake nodes of 1000 MHz and
// 2048 MB each.
type planFixture struct {
	store *state.StateStore
	job   *structs.Job
	nodes []*structs.Node
	index uint64
}

func newPlanFixture(t *testing.T) *planFixture {
	st, err := state.NewStateStore()
	must.NoError(t, err)
	f := &planFixture{store: st, job: fixture.Job("web")}
	f.index++
	must.NoError(t, st.UpsertJob(f.index, f.job))
	for _, name := range []string{"a", "b", "c"} {
		n := fixture.ClientNode(name)
		f.index++
		must.NoError(t, st.UpsertNode(f.index, n))
		f.nodes = append(f.nodes, n)
	}
	return f
}

func (f *planFixture) view(t *testing.T, inflight map[string][]*structs.Allocation) *View {
	snap, err := f.store.Snapshot()
	must.NoError(t, err)
	return &View{Snap: snap, Inflight: inflight}
}

func TestEvaluatePlan_RejectsOnlyNodesThatChanged(t *testing.T) {
	f := newPlanFixture(t)
	a, b, c := f.nodes[0], f.nodes[1], f.nodes[2]

	// The scheduler planned against the state as it was; since then node
	// b went down and another plan filled most of node c.
	plan := &structs.Plan{EvalID: "eval", Job: f.job}
	plan.AppendAlloc(fixture.PlanAlloc(f.job, a, 0, 500, 1024))
	plan.AppendAlloc(fixture.PlanAlloc(f.job, b, 1, 500, 1024))
	plan.AppendAlloc(fixture.PlanAlloc(f.job, c, 2, 500, 1024))

	f.index++
	must.NoError(t, f.store.UpdateNodeStatus(f.index, b.ID, structs.NodeStatusDown, 1))
	other := fixture.Job("other")
	f.index++
	must.NoError(t, f.store.UpsertJob(f.index, other))
	f.index++
	must.NoError(t, f.store.UpsertAllocs(f.index, []*structs.Allocation{fixture.PlanAlloc(other, c, 0, 600, 512)}))

	result, rejected, err := Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.MapContainsKeys(t, result.NodeAllocation, []string{a.ID})
	must.MapLen(t, 1, result.NodeAllocation)
	must.Eq(t, map[string]string{b.ID: "node is down", c.ID: "node's cpu is exhausted"}, rejected)
	full, expected, actual := result.FullCommit(plan)
	must.False(t, full)
	must.Eq(t, 3, expected)
	must.Eq(t, 1, actual)

	// All at once: nothing is committed.
	plan.AllAtOnce = true
	result, _, err = Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.MapEmpty(t, result.NodeAllocation)
}

func TestEvaluatePlan_CountsPlanInFlightAndStops(t *testing.T) {
	f := newPlanFixture(t)
	a := f.nodes[0]
	running := fixture.PlanAlloc(f.job, a, 0, 600, 512)
	f.index++
	must.NoError(t, f.store.UpsertAllocs(f.index, []*structs.Allocation{running}))

	// A placement that fits only if the running allocation stops.
	plan := &structs.Plan{EvalID: "eval", Job: f.job}
	plan.AppendAlloc(fixture.PlanAlloc(f.job, a, 1, 600, 512))
	_, rejected, err := Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.MapContainsKey(t, rejected, a.ID)

	plan.AppendStoppedAlloc(running, "replaced", "")
	result, rejected, err := Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.MapEmpty(t, rejected)
	must.MapLen(t, 1, result.NodeUpdate)

	// The plan in flight stops nothing but takes the room: it counts.
	taken := fixture.PlanAlloc(f.job, a, 2, 600, 512)
	inflight := map[string][]*structs.Allocation{a.ID: {taken}}
	fresh := &structs.Plan{EvalID: "eval2", Job: f.job}
	fresh.AppendAlloc(fixture.PlanAlloc(f.job, f.nodes[0], 3, 100, 100))
	_, rejected, err = Evaluate(f.view(t, inflight), fresh)
	must.NoError(t, err)
	must.MapContainsKey(t, rejected, a.ID, must.Sprint("running holds 600 and taken 600 of 1000 MHz"))
}

func TestEvaluatePlan_NodeEligibility(t *testing.T) {
	f := newPlanFixture(t)
	a, b := f.nodes[0], f.nodes[1]
	running := fixture.PlanAlloc(f.job, a, 0, 100, 100)
	f.index++
	must.NoError(t, f.store.UpsertAllocs(f.index, []*structs.Allocation{running}))
	f.index++
	must.NoError(t, f.store.UpdateNodeEligibility(f.index, a.ID, structs.NodeSchedulingIneligible, 1))
	f.index++
	must.NoError(t, f.store.UpdateNodeDrain(f.index, b.ID, &structs.DrainStrategy{}, false, 1))

	// An in-place update of what already runs on an ineligible node
	// passes; a new placement there does not, nor on a draining node.
	update := *running
	update.Job = f.job
	plan := &structs.Plan{EvalID: "eval", Job: f.job}
	plan.AppendAlloc(&update)
	_, rejected, err := Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.MapEmpty(t, rejected)

	plan.AppendAlloc(fixture.PlanAlloc(f.job, a, 1, 100, 100))
	plan.AppendAlloc(fixture.PlanAlloc(f.job, b, 2, 100, 100))
	_, rejected, err = Evaluate(f.view(t, nil), plan)
	must.NoError(t, err)
	must.Eq(t, map[string]string{a.ID: "node is not eligible for scheduling", b.ID: "node is draining"}, rejected)

	gone := &structs.Plan{EvalID: "eval", Job: f.job}
	gone.AppendAlloc(fixture.PlanAlloc(f.job, &structs.Node{ID: "missing"}, 0, 1, 1))
	_, rejected, err = Evaluate(f.view(t, nil), gone)
	must.NoError(t, err)
	must.Eq(t, map[string]string{"missing": "node does not exist"}, rejected)
}
