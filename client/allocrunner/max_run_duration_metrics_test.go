package allocrunner

import (
	"maps"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	metrics "github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// newTestMetrics is a go-metrics instance of the test's own over sink, with
// the agent's default service prefix and no hostname in the keys.
func newTestMetrics(t testing.TB, sink metrics.MetricSink) *metrics.Metrics {
	cfg := metrics.DefaultConfig("nomad")
	cfg.EnableHostname = false
	cfg.EnableRuntimeMetrics = false
	m, err := metrics.New(cfg, sink)
	must.NoError(t, err)
	return m
}

// metricsRecorder is a sink that keeps every gauge set and counter
// increment, for tests that count emissions.
type metricsRecorder struct {
	metrics.BlackholeSink
	metrics *metrics.Metrics

	mu       sync.Mutex
	gauges   []emission
	counters []emission
}

type emission struct {
	name   string
	value  float32
	labels []metrics.Label
}

func newMetricsRecorder() *metricsRecorder {
	r := &metricsRecorder{}
	cfg := metrics.DefaultConfig("nomad")
	cfg.EnableHostname = false
	cfg.EnableRuntimeMetrics = false
	m, err := metrics.New(cfg, r)
	if err != nil {
		panic(err)
	}
	r.metrics = m
	return r
}

func (r *metricsRecorder) SetGaugeWithLabels(key []string, val float32, labels []metrics.Label) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gauges = append(r.gauges, emission{strings.Join(key, "."), val, labels})
}

func (r *metricsRecorder) IncrCounterWithLabels(key []string, val float32, labels []metrics.Label) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counters = append(r.counters, emission{strings.Join(key, "."), val, labels})
}

// gaugeSets is how many gauge values were set so far.
func (r *metricsRecorder) gaugeSets() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.gauges)
}

// counter is the total of the counter key.
func (r *metricsRecorder) counter(key []string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := "nomad." + strings.Join(key, ".")
	total := 0
	for _, c := range r.counters {
		if c.name == name {
			total += int(c.value)
		}
	}
	return total
}

func labelMap(labels []metrics.Label) map[string]string {
	m := make(map[string]string, len(labels))
	for _, l := range labels {
		m[l.Name] = l.Value
	}
	return m
}

// inmemGauge finds the gauge name for allocID in one interval of an
// in-memory sink.
func inmemGauge(intv *metrics.IntervalMetrics, key []string, allocID string) (metrics.GaugeValue, bool) {
	name := "nomad." + strings.Join(key, ".")
	for _, g := range intv.Gauges {
		if g.Name == name && labelMap(g.Labels)["alloc_id"] == allocID {
			return g, true
		}
	}
	return metrics.GaugeValue{}, false
}

// inmemCounter is the total of the counter key with exactly the labels
// want over every interval, and how many such emissions there were.
func inmemCounter(sink *metrics.InmemSink, key []string, want map[string]string) (total float64, emissions int) {
	name := "nomad." + strings.Join(key, ".")
	for _, intv := range sink.Data() {
		for _, c := range intv.Counters {
			if c.Name == name && maps.Equal(labelMap(c.Labels), want) {
				total += c.Sum
				emissions += c.Count
			}
		}
	}
	return total, emissions
}

// intervalAt is the sink's interval starting at at, or nil.
func intervalAt(sink *metrics.InmemSink, at time.Time) *metrics.IntervalMetrics {
	for _, intv := range sink.Data() {
		if intv.Interval.Equal(at) {
			return intv
		}
	}
	return nil
}

func TestMaxRunDurationMetrics_OneSeriesPerAllocation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := metrics.NewInmemSink(time.Second, time.Hour)
		m := newTestMetrics(t, sink)
		node := &structs.Node{ID: "node-1", Datacenter: "dc1", NodeClass: "batch", NodePool: "gpu"}
		opts := func(cfg *Config) {
			cfg.Metrics = m
			cfg.MetricsCollectionInterval = time.Second
			cfg.Node = node
		}
		// Two allocations of one group on one node: one outlives its
		// budget, the other ends before it.
		start := time.Now()
		expiring := boundedAlloc(start, 10*time.Second)
		finishing := boundedAlloc(start, 30*time.Second)
		finishing.Job.TaskGroups[0].Tasks[0].Config["run_for"] = "20s"
		h1 := newARHarness(t, expiring, opts)
		h2 := newARHarness(t, finishing, opts)
		go h1.ar.Run()
		go h2.ar.Run()

		time.Sleep(2500 * time.Millisecond)
		for _, a := range []*structs.Allocation{expiring, finishing} {
			budget := *a.Job.TaskGroups[0].MaxRunDuration
			for _, sec := range []int{1, 2} {
				intv := intervalAt(sink, start.Add(time.Duration(sec)*time.Second))
				must.NotNil(t, intv)
				configured, ok := inmemGauge(intv, metricMaxRunConfigured, a.ID)
				must.True(t, ok, must.Sprintf("configured_seconds of %s at %ds", a.ID, sec))
				must.Eq(t, float32(budget.Seconds()), configured.Value)
				remaining, ok := inmemGauge(intv, metricMaxRunRemaining, a.ID)
				must.True(t, ok, must.Sprintf("remaining_seconds of %s at %ds", a.ID, sec))
				// Refreshed every collection interval: a second less each.
				must.Eq(t, float32((budget - time.Duration(sec)*time.Second).Seconds()), remaining.Value)
				must.Eq(t, map[string]string{
					"alloc_id": a.ID, "job": "example", "namespace": "default", "task_group": "web",
					"node_id": "node-1", "datacenter": "dc1", "node_class": "batch", "node_pool": "gpu",
				}, labelMap(remaining.Labels))
				must.Eq(t, remaining.Labels, configured.Labels)
			}
		}

		// The counter is the node's, per group: no alloc_id.
		group := map[string]string{
			"job": "example", "namespace": "default", "task_group": "web",
			"node_id": "node-1", "datacenter": "dc1", "node_class": "batch", "node_pool": "gpu",
		}
		<-h1.ar.WaitCh()
		must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, h1.ar.Alloc().ClientDescription)
		total, _ := inmemCounter(sink, metricMaxRunExceeded, group)
		must.Eq(t, 1.0, total)
		ended := time.Now()
		must.Eq(t, start.Add(10*time.Second), ended)

		<-h2.ar.WaitCh()
		must.Eq(t, descComplete, h2.ar.Alloc().ClientDescription)
		total, _ = inmemCounter(sink, metricMaxRunExceeded, group)
		must.Eq(t, 1.0, total, must.Sprint("the allocation that finished adds nothing"))
		for _, intv := range sink.Data() {
			for _, c := range intv.Counters {
				must.MapNotContainsKey(t, labelMap(c.Labels), "alloc_id", must.Sprint(c.Name))
			}
		}

		// Once an allocation has ended its gauges are no longer set.
		time.Sleep(5 * time.Second)
		for _, intv := range sink.Data() {
			for _, a := range []struct {
				id    string
				ended time.Time
			}{{expiring.ID, ended}, {finishing.ID, start.Add(20 * time.Second)}} {
				if !intv.Interval.After(a.ended) {
					continue
				}
				_, ok := inmemGauge(intv, metricMaxRunRemaining, a.id)
				must.False(t, ok, must.Sprintf("remaining_seconds of %s at %s", a.id, intv.Interval.Sub(start)))
				_, ok = inmemGauge(intv, metricMaxRunConfigured, a.id)
				must.False(t, ok, must.Sprintf("configured_seconds of %s at %s", a.id, intv.Interval.Sub(start)))
			}
		}
	})
}

func TestMaxRunDurationMetrics_DefaultIsTheGlobalAtEmission(t *testing.T) {
	mm := newMaxRunDurationMetrics(nil, boundedAlloc(time.Now(), time.Second), nil)
	must.True(t, mm.target() == metrics.Default())
	own := newTestMetrics(t, &metrics.BlackholeSink{})
	must.True(t, newMaxRunDurationMetrics(own, boundedAlloc(time.Now(), time.Second), nil).target() == own)
}

func TestMaxRunDurationMetrics_LabelsWithoutNode(t *testing.T) {
	a := boundedAlloc(time.Now(), time.Second)
	labels := labelMap(allocMetricLabels(a, nil))
	must.Eq(t, a.ID, labels["alloc_id"])
	must.Eq(t, "", labels["node_id"])
	must.MapLen(t, 8, labels)
}

// The labels are made on the first emission: the allocations that never
// emit (no max_run_duration) do not each keep nine labels, and none keeps
// the allocation itself.
func TestMaxRunDurationMetrics_LabelsMadeOnFirstEmission(t *testing.T) {
	a := boundedAlloc(time.Now(), time.Minute)
	mm := newMaxRunDurationMetrics(newTestMetrics(t, &metrics.BlackholeSink{}), a, &structs.Node{ID: "n1"})
	must.Nil(t, mm.labels)
	must.Nil(t, mm.counterLabels)

	mm.setGauges(a.MaxRun(), time.Now())
	must.Eq(t, labelMap(allocMetricLabels(a, &structs.Node{ID: "n1"})), labelMap(mm.labels))
	must.Eq(t, labelMap(maxRunCounterLabels(a, &structs.Node{ID: "n1"}, "")), labelMap(mm.counterLabels))
	must.Eq(t, "n1", labelMap(mm.taskCounterLabels("web"))["node_id"])
	must.Eq(t, "web", labelMap(mm.taskCounterLabels("web"))["task"])
}
