package client

import (
	"time"

	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/structs"
)

// maxRunCounters keeps the node's max_run_duration counters
// (allocrunner.TouchMaxRunCounters) in existence, at their totals, for
// every running allocation a budget or a warning applies to, so that a
// dashboard's increase() sees the first timeout of a job. It is always
// on, as the max_run_duration gauges are.
type maxRunCounters struct {
	node *structs.Node
}

// counterSink is a sink that also takes counters: *metrics.Metrics.
type counterSink interface {
	IncrCounterWithLabels(key []string, val float32, labels []metrics.Label)
}

func (m *maxRunCounters) collect(g gaugeSink, _ time.Time, allocs []*structs.Allocation) {
	sink, ok := g.(counterSink)
	if !ok {
		return
	}
	for _, a := range allocs {
		allocrunner.TouchMaxRunCounters(sink, a, m.node)
	}
}
