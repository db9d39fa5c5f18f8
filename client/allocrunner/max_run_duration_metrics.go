package allocrunner

import (
	"slices"
	"time"

	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/structs"
)

// The max_run_duration metric names, under the agent's service prefix.
var (
	metricMaxRunConfigured = []string{"client", "allocs", "max_run_duration", "configured_seconds"}
	metricMaxRunRemaining  = []string{"client", "allocs", "max_run_duration", "remaining_seconds"}
	metricMaxRunExceeded   = []string{"client", "allocs", "max_run_duration", "exceeded"}
)

// maxRunDurationMetrics emits one allocation's max_run_duration series. The
// alloc_id label makes the series the allocation's own: two allocations of
// one group on one node never share a series.
type maxRunDurationMetrics struct {
	// m is the metrics instance; nil means go-metrics' global.
	m      *metrics.Metrics
	labels []metrics.Label
}

func newMaxRunDurationMetrics(m *metrics.Metrics, alloc *structs.Allocation, node *structs.Node) *maxRunDurationMetrics {
	return &maxRunDurationMetrics{m: m, labels: allocMetricLabels(alloc, node)}
}

// allocMetricLabels are the labels of an allocation's series: the
// allocation's and its node's.
func allocMetricLabels(alloc *structs.Allocation, node *structs.Node) []metrics.Label {
	// The job label is the job's name, as on Nomad's allocation metrics.
	job := alloc.JobID
	if alloc.Job != nil && alloc.Job.Name != "" {
		job = alloc.Job.Name
	}
	labels := []metrics.Label{
		{Name: "alloc_id", Value: alloc.ID},
		{Name: "job", Value: job},
		{Name: "namespace", Value: alloc.Namespace},
		{Name: "task_group", Value: alloc.TaskGroup},
	}
	var n structs.Node
	if node != nil {
		n = *node
	}
	labels = append(labels,
		metrics.Label{Name: "node_id", Value: n.ID},
		metrics.Label{Name: "datacenter", Value: n.Datacenter},
		metrics.Label{Name: "node_class", Value: n.NodeClass},
		metrics.Label{Name: "node_pool", Value: n.NodePool},
	)
	// go-metrics may append a host label: with no spare capacity each
	// emission appends to a copy, never to this shared slice.
	return slices.Clip(labels)
}

// target is where the series go: the configured instance, or the global
// one as it is now (the agent installs its sinks there, and may replace
// them).
func (mm *maxRunDurationMetrics) target() *metrics.Metrics {
	if mm.m != nil {
		return mm.m
	}
	return metrics.Default()
}

// setGauges reports m's budget and the seconds left of it at now, never
// below zero.
func (mm *maxRunDurationMetrics) setGauges(m structs.MaxRun, now time.Time) {
	t := mm.target()
	t.SetGaugeWithLabels(metricMaxRunConfigured, float32(m.Budget.Seconds()), mm.labels)
	t.SetGaugeWithLabels(metricMaxRunRemaining, float32(m.Remaining(now).Seconds()), mm.labels)
}

// exceeded counts the allocation's expiry.
func (mm *maxRunDurationMetrics) exceeded() {
	mm.target().IncrCounterWithLabels(metricMaxRunExceeded, 1, mm.labels)
}
