package command

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestFormatPlacementFailures(t *testing.T) {
	failed := map[string]*api.AllocationMetric{
		"web": {
			NodesEvaluated:     3,
			NodesAvailable:     map[string]int{"dc1": 3, "dc2": 0},
			ConstraintFiltered: map[string]int{"missing drivers": 1},
			ClassFiltered:      map[string]int{"gpu": 2},
			NodesExhausted:     1,
			ClassExhausted:     map[string]int{"small": 1},
			DimensionExhausted: map[string]int{"memory": 1},
			QuotaExhausted:     []string{"cpu exhausted (500 needed > 400 limit)"},
			CoalescedFailures:  2,
			Scores:             map[string]float64{"node-1": 0.5},
		},
		"db": {NodesEvaluated: 0},
	}
	want := `Task Group "db" (failed to place 1 allocation):
  * No nodes were eligible for evaluation
Task Group "web" (failed to place 3 allocations):
  * No nodes are available in datacenter "dc2"
  * Class "gpu": 2 nodes excluded by filter
  * Constraint "missing drivers": 1 node excluded by filter
  * Resources exhausted on 1 node
  * Class "small" exhausted on 1 node
  * Dimension "memory" exhausted on 1 node
  * Quota limit hit "cpu exhausted (500 needed > 400 limit)"`
	must.Eq(t, want, formatPlacementFailures(failed, false))
	must.StrContains(t, formatPlacementFailures(failed, true), `Score "node-1" = 0.500000`)
}

func TestPlacementFailures_NilMetric(t *testing.T) {
	got := placementFailures(map[string]*api.AllocationMetric{"g": nil}, false)
	must.Len(t, 1, got)
	must.Eq(t, `Task Group "g" (failed to place 1 allocation):`, got[0].Header)
	must.SliceEmpty(t, got[0].Reasons)
}

// TestPlacementReasons_MissingDrivers names the drivers a group needs
// that no node has, as the scheduler reports them.
func TestPlacementReasons_MissingDrivers(t *testing.T) {
	m := &api.AllocationMetric{
		NodesEvaluated:     3,
		ConstraintFiltered: map[string]int{"missing drivers: docker": 1, "missing drivers: docker, podman": 2},
	}
	must.Eq(t, []string{
		`Constraint "missing drivers": docker not found on 1 node`,
		`Constraint "missing drivers": docker, podman not found on 2 nodes`,
	}, placementReasons(m, false))
}
