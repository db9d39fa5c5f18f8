package allocrunner

import (
	"slices"
	"sync"
	"time"

	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/structs"
)

// The max_run_duration metric names, under the agent's service prefix.
var (
	metricMaxRunConfigured   = []string{"client", "allocs", "max_run_duration", "configured_seconds"}
	metricMaxRunRemaining    = []string{"client", "allocs", "max_run_duration", "remaining_seconds"}
	metricMaxRunExceeded     = []string{"client", "allocs", "max_run_duration", "exceeded"}
	metricMaxRunTaskExceeded = []string{"client", "allocs", "max_run_duration", "task_exceeded"}
	metricMaxRunWarnings     = []string{"client", "allocs", "max_run_duration", "warnings"}
)

// maxRunDurationMetrics emits one allocation's max_run_duration series.
//
// The gauges are the allocation's own: the alloc_id label keeps two
// allocations of one group on one node apart. The counters are the node's,
// per group (and per task for a task's own limit and warning), without
// alloc_id: a counter per allocation would start at 1 and never rise, and
// Prometheus's increase() would never see it. TouchMaxRunCounters makes
// them exist, at 0, before their first count.
//
// Most allocations have no max_run_duration: their labels (nine strings
// each, for a few series) are made on the first emission, not for every
// allocation the client runs. BenchmarkAllocRunner_Memory (allocations
// without a budget) keeps 9.36 KB of heap per allocation so, 9.85 KB with
// the labels made with the runner (+5.2%, medians of 6, p=0.002; measured
// on 01f6819).
type maxRunDurationMetrics struct {
	// m is the metrics instance; nil means go-metrics' global.
	m *metrics.Metrics
	// of and node are what the labels are made of: the allocation's ID,
	// job, namespace and group do not change.
	of   allocLabels
	node *structs.Node

	// labels are the gauges', counterLabels the group counter's, made
	// once by labelsOnce.
	labelsOnce    sync.Once
	labels        []metrics.Label
	counterLabels []metrics.Label
}

func newMaxRunDurationMetrics(m *metrics.Metrics, alloc *structs.Allocation, node *structs.Node) *maxRunDurationMetrics {
	return &maxRunDurationMetrics{m: m, of: allocLabelsOf(alloc), node: node}
}

// makeLabels makes the labels on the first emission.
func (mm *maxRunDurationMetrics) makeLabels() {
	mm.labelsOnce.Do(func() {
		mm.labels = mm.of.gauge(mm.node)
		mm.counterLabels = mm.of.counter(mm.node, "")
	})
}

// allocLabels is what an allocation's series are labelled with.
type allocLabels struct{ id, job, namespace, group string }

func allocLabelsOf(alloc *structs.Allocation) allocLabels {
	// The job label is the job's name, as on Nomad's allocation metrics.
	job := alloc.JobID
	if alloc.Job != nil && alloc.Job.Name != "" {
		job = alloc.Job.Name
	}
	return allocLabels{id: alloc.ID, job: job, namespace: alloc.Namespace, group: alloc.TaskGroup}
}

// allocMetricLabels are the labels of an allocation's series: the
// allocation's and its node's.
func allocMetricLabels(alloc *structs.Allocation, node *structs.Node) []metrics.Label {
	return allocLabelsOf(alloc).gauge(node)
}

func (a allocLabels) gauge(node *structs.Node) []metrics.Label {
	return slices.Clip(append([]metrics.Label{{Name: "alloc_id", Value: a.id}}, a.counter(node, "")...))
}

// maxRunCounterLabels are the labels of a node's max_run_duration counter
// for alloc's group, and for one of its tasks unless task is empty.
func maxRunCounterLabels(alloc *structs.Allocation, node *structs.Node, task string) []metrics.Label {
	return allocLabelsOf(alloc).counter(node, task)
}

func (a allocLabels) counter(node *structs.Node, task string) []metrics.Label {
	labels := []metrics.Label{
		{Name: "job", Value: a.job},
		{Name: "namespace", Value: a.namespace},
		{Name: "task_group", Value: a.group},
	}
	if task != "" {
		labels = append(labels, metrics.Label{Name: "task", Value: task})
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
	mm.makeLabels()
	t := mm.target()
	t.SetGaugeWithLabels(metricMaxRunConfigured, float32(m.Budget.Seconds()), mm.labels)
	t.SetGaugeWithLabels(metricMaxRunRemaining, float32(m.Remaining(now).Seconds()), mm.labels)
}

// reportGauges sets m's gauges now and every interval after, from a
// goroutine of its own, until the returned stop is called; stop returns
// once that goroutine has.
func (mm *maxRunDurationMetrics) reportGauges(m structs.MaxRun, interval time.Duration) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		mm.setGauges(m, time.Now())
		for {
			select {
			case <-quit:
				return
			case <-ticker.C:
				mm.setGauges(m, time.Now())
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// exceeded counts the allocation's expiry.
func (mm *maxRunDurationMetrics) exceeded() {
	mm.makeLabels()
	mm.target().IncrCounterWithLabels(metricMaxRunExceeded, 1, mm.counterLabels)
}

// TaskMaxRunExceeded counts a task its own max_run_duration killed
// (taskrunner.MaxRunEvents).
func (mm *maxRunDurationMetrics) TaskMaxRunExceeded(task string) {
	mm.target().IncrCounterWithLabels(metricMaxRunTaskExceeded, 1, mm.taskCounterLabels(task))
}

// TaskMaxRunWarned counts a max_run_warning sent to a task
// (taskrunner.MaxRunEvents).
func (mm *maxRunDurationMetrics) TaskMaxRunWarned(task string) {
	mm.target().IncrCounterWithLabels(metricMaxRunWarnings, 1, mm.taskCounterLabels(task))
}

func (mm *maxRunDurationMetrics) taskCounterLabels(task string) []metrics.Label {
	mm.makeLabels()
	return withTask(mm.counterLabels, task)
}

// withTask is group counter labels with the task's inserted after
// task_group, in a slice of its own.
func withTask(group []metrics.Label, task string) []metrics.Label {
	out := make([]metrics.Label, 0, len(group)+1)
	out = append(out, group[:3]...)
	out = append(out, metrics.Label{Name: "task", Value: task})
	return slices.Clip(append(out, group[3:]...))
}

// counterSink is what TouchMaxRunCounters adds to: a *metrics.Metrics.
type counterSink interface {
	IncrCounterWithLabels(key []string, val float32, labels []metrics.Label)
}

// TouchMaxRunCounters adds 0 to each max_run_duration counter that may
// count for alloc on node: the group's when a budget applies to the
// allocation, a task's when its own limit or a warning applies to it. The
// client calls it for its running allocations every collection interval,
// so that each series exists at 0 before its first count and does not go
// stale while it may still count: Prometheus's increase() sees a count
// only in a series it has seen before.
func TouchMaxRunCounters(sink counterSink, alloc *structs.Allocation, node *structs.Node) {
	tg := alloc.LookupTaskGroup()
	if tg == nil {
		return
	}
	if alloc.MaxRun().Budget > 0 {
		sink.IncrCounterWithLabels(metricMaxRunExceeded, 0, maxRunCounterLabels(alloc, node, ""))
	}
	for _, t := range tg.Tasks {
		own := alloc.TaskMaxRun(t.Name).Budget > 0
		warns := t.MaxRunWarning != nil && structs.AllowsMaxRunDuration(alloc.Job.Type)
		if !own && !warns {
			continue
		}
		labels := maxRunCounterLabels(alloc, node, t.Name)
		if own {
			sink.IncrCounterWithLabels(metricMaxRunTaskExceeded, 0, labels)
		}
		if warns {
			sink.IncrCounterWithLabels(metricMaxRunWarnings, 0, labels)
		}
	}
}
