package client

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/structs"
)

// gaugeSink is where the resource gauges go: a *metrics.Metrics, or a
// recorder in tests.
type gaugeSink interface {
	SetGaugeWithLabels(key []string, val float32, labels []metrics.Label)
}

// metricsCollector emits one family of gauges. now is when the collection
// started; allocs are the allocations whose tasks have not all ended.
type metricsCollector interface {
	collect(g gaugeSink, now time.Time, allocs []*structs.Allocation)
}

// metricsPublisher emits the allocation counts, and runs the collectors
// the telemetry switches turn on, at once and then every collection
// interval, in one goroutine for the node and all its allocations: the
// cost of an interval grows with the number of running tasks, not the
// number of goroutines.
type metricsPublisher struct {
	interval time.Duration
	sink     func() gaugeSink
	allocs   func() allocSnapshot
	// counts is always there, as a Nomad client always emits its
	// allocation counts; nil only in tests of the loop itself.
	counts *allocCountMetrics
	// maxRun is always there too: it keeps the max_run_duration counters,
	// which are emitted whatever the switches.
	maxRun     *maxRunCounters
	collectors []metricsCollector
}

// allocSnapshot is the client's allocations as one collection sees them.
type allocSnapshot struct {
	// active are the allocations whose tasks have not all ended, by ID.
	active []*structs.Allocation
	// finished is how many allocations whose tasks have all ended the
	// client still keeps, counted at the moment active was listed.
	finished int
}

// startMetricsPublisher starts the publisher, whatever the switches: the
// allocation counts are always emitted. It ends with the client's other
// loops.
func (c *Client) startMetricsPublisher() {
	p := c.newMetricsPublisher()
	c.loops.Add(1)
	go func() {
		defer c.loops.Done()
		p.run(c.ctx)
	}()
}

// newMetricsPublisher returns the publisher of the allocation counts and
// of the gauges the switches turn on.
func (c *Client) newMetricsPublisher() *metricsPublisher {
	cfg := c.config
	interval := cfg.MetricsInterval
	if interval <= 0 {
		interval = allocrunner.DefaultMetricsCollectionInterval
	}
	p := &metricsPublisher{
		interval: interval,
		sink:     globalSink(cfg.Metrics),
		allocs:   c.allocSnapshot,
	}
	labels := nodeMetricLabels(c.node)
	p.counts = newAllocCountMetrics(labels)
	p.maxRun = &maxRunCounters{node: c.node}
	if cfg.PublishNodeMetrics {
		p.collectors = append(p.collectors, newHostMetrics(c.logger.Named("host_metrics"), c.node, cfg.AllocDir, labels))
	}
	if cfg.PublishAllocationMetrics {
		mhz, _ := strconv.ParseFloat(c.node.Attributes["cpu.frequency"], 64)
		am := newAllocMetrics(labels, sharesPerCore(c.node), mhz, c.taskProcess)
		am.usage = c.taskUsageOf
		p.collectors = append(p.collectors, am)
	}
	return p
}

// globalSink returns m, or else go-metrics' global instance as it is at
// each call: the agent installs its sinks there, and may replace them.
func globalSink(m *metrics.Metrics) func() gaugeSink {
	if m != nil {
		return func() gaugeSink { return m }
	}
	return func() gaugeSink { return metrics.Default() }
}

// run collects at once, so that a scrape right after the agent starts
// finds the gauges, then every interval until ctx ends.
func (p *metricsPublisher) run(ctx context.Context) {
	p.publish()
	ticker := time.NewTicker(p.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			p.publish()
		}
	}
}

// publish emits the counts and runs every collector once, all from one
// snapshot of the allocations.
func (p *metricsPublisher) publish() {
	g := p.sink()
	snap := p.allocs()
	now := time.Now()
	if p.counts != nil {
		p.counts.collect(g, snap)
	}
	if p.maxRun != nil {
		p.maxRun.collect(g, now, snap.active)
	}
	for _, c := range p.collectors {
		c.collect(g, now, snap.active)
	}
}

// allocSnapshot copies the allocations of the runners whose tasks have
// not all ended, and counts the others. Finished ones are left out before
// their state is copied: a client keeps up to gc_max_allocs of them. The
// runners being destroyed are in neither: the client is forgetting them.
func (c *Client) allocSnapshot() allocSnapshot {
	var snap allocSnapshot
	c.mu.Lock()
	runners := make([]*allocrunner.AllocRunner, 0, len(c.runners))
	for _, e := range c.runners {
		switch {
		case e.destroying:
			// Counted nowhere.
		case e.finishedAt.IsZero():
			runners = append(runners, e.ar)
		default:
			snap.finished++
		}
	}
	c.mu.Unlock()
	out := make([]*structs.Allocation, 0, len(runners))
	for _, ar := range runners {
		out = append(out, ar.Alloc())
	}
	// Map order would make the order of emissions vary; sorted, the
	// output of a test is the same every run.
	slices.SortFunc(out, func(a, b *structs.Allocation) int { return cmp.Compare(a.ID, b.ID) })
	snap.active = out
	return snap
}

// nodeMetricLabels are the labels of every node and allocation resource
// series: the node's identity.
func nodeMetricLabels(n *structs.Node) []metrics.Label {
	return slices.Clip([]metrics.Label{
		{Name: "node_id", Value: n.ID},
		{Name: "datacenter", Value: n.Datacenter},
		{Name: "node_class", Value: n.NodeClass},
		{Name: "node_pool", Value: n.NodePool},
	})
}

// withLabels returns base followed by more, in a slice of its own with no
// spare capacity: go-metrics may append a host label to what it is given,
// and must never write into a slice another series shares.
func withLabels(base []metrics.Label, more ...metrics.Label) []metrics.Label {
	out := make([]metrics.Label, 0, len(base)+len(more))
	return append(append(out, base...), more...)
}

// sharesPerCore is what one reserved core counts for in CPU shares (MHz)
// on the node, as the scheduler counts it.
func sharesPerCore(n *structs.Node) int64 {
	if n.NodeResources == nil || n.NodeResources.Cpu.TotalCpuCores == 0 {
		return 0
	}
	return n.NodeResources.Cpu.CpuShares / int64(n.NodeResources.Cpu.TotalCpuCores)
}

// cpuShares is the CPU, in MHz, that r holds on a node whose cores are
// worth perCore each.
func cpuShares(r *structs.Resources, perCore int64) int64 {
	if r == nil {
		return 0
	}
	return int64(r.CPU) + int64(r.Cores)*perCore
}
