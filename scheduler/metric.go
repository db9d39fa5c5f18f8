package scheduler

import "github.com/drover-io/drover/structs"

// newMetric starts the metric of one placement, or of a group's failed
// placements. NodesAvailable is shared by every metric of the attempt:
// metrics are never modified once in a plan.
func newMetric(nodes *nodeSet) *structs.AllocMetric {
	return &structs.AllocMetric{
		NodesInPool:    nodes.inPool,
		NodePool:       nodes.pool,
		NodesAvailable: nodes.available,
	}
}

// filterNode records a node that cannot run the group.
func filterNode(m *structs.AllocMetric, node *structs.Node, reason string) {
	m.NodesFiltered++
	if m.ConstraintFiltered == nil {
		m.ConstraintFiltered = make(map[string]int)
	}
	m.ConstraintFiltered[reason]++
	if node.NodeClass != "" {
		if m.ClassFiltered == nil {
			m.ClassFiltered = make(map[string]int)
		}
		m.ClassFiltered[node.NodeClass]++
	}
}

// exhaustNode records a node that could run the group but has no room.
func exhaustNode(m *structs.AllocMetric, node *structs.Node, dimension string) {
	m.NodesExhausted++
	if m.DimensionExhausted == nil {
		m.DimensionExhausted = make(map[string]int)
	}
	m.DimensionExhausted[dimension]++
	if node.NodeClass != "" {
		if m.ClassExhausted == nil {
			m.ClassExhausted = make(map[string]int)
		}
		m.ClassExhausted[node.NodeClass]++
	}
}

// scoreNode records a score of a candidate node.
func scoreNode(m *structs.AllocMetric, node *structs.Node, scorer string, score float64) {
	if m.Scores == nil {
		m.Scores = make(map[string]float64, 2)
	}
	m.Scores[node.ID+"."+scorer] = score
}
