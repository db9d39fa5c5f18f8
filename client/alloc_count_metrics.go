package client

import (
	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/structs"
)

// The allocation count metric names, under the agent's service prefix, as
// Nomad's clients emit them whatever the publish_* switches say.
var (
	metricAllocationsRunning   = []string{"client", "allocations", "running"}
	metricAllocationsPending   = []string{"client", "allocations", "pending"}
	metricAllocationsBlocked   = []string{"client", "allocations", "blocked"}
	metricAllocationsMigrating = []string{"client", "allocations", "migrating"}
	metricAllocationsTerminal  = []string{"client", "allocations", "terminal"}
)

// allocCounts is how many of the client's allocations are in each state.
type allocCounts struct {
	running, pending, terminal int
	// blocked (waiting for a previous allocation to stop) and migrating
	// (waiting for its data) stay 0: a Drover client starts an allocation
	// without waiting on a previous one, and moves no data between them.
	blocked, migrating int
}

// countAllocs sorts the allocations of s by client status. Finished
// allocations the client still keeps are terminal, as are active ones
// whose tasks have all ended since their runner last said so (complete or
// failed, as Nomad counts them). An allocation the servers marked lost, or
// in the unknown status (its node disconnected), counts in none.
func countAllocs(s allocSnapshot) allocCounts {
	n := allocCounts{terminal: s.finished}
	for _, a := range s.active {
		switch a.ClientStatus {
		case structs.AllocClientStatusRunning:
			n.running++
		case structs.AllocClientStatusPending:
			n.pending++
		case structs.AllocClientStatusComplete, structs.AllocClientStatusFailed:
			n.terminal++
		}
	}
	return n
}

// allocCountMetrics emits the node's allocation counts. It reads nothing
// but the snapshot the publisher already took, so that the gauges cost
// next to nothing on a client that publishes nothing else.
type allocCountMetrics struct {
	labels []metrics.Label
}

func newAllocCountMetrics(nodeLabels []metrics.Label) *allocCountMetrics {
	return &allocCountMetrics{labels: nodeLabels}
}

// collect sets the five gauges, zeros included: a count that drops to 0
// must show as 0, not as a series that goes stale.
func (m *allocCountMetrics) collect(g gaugeSink, s allocSnapshot) {
	n := countAllocs(s)
	g.SetGaugeWithLabels(metricAllocationsRunning, float32(n.running), m.labels)
	g.SetGaugeWithLabels(metricAllocationsPending, float32(n.pending), m.labels)
	g.SetGaugeWithLabels(metricAllocationsBlocked, float32(n.blocked), m.labels)
	g.SetGaugeWithLabels(metricAllocationsMigrating, float32(n.migrating), m.labels)
	g.SetGaugeWithLabels(metricAllocationsTerminal, float32(n.terminal), m.labels)
}
