package client

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	metrics "github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// gaugeRecorder is a go-metrics sink that keeps the last value and the
// number of settings of each gauge series, keyed "name{label=value,...}"
// with the labels in the order they were given.
type gaugeRecorder struct {
	mu     sync.Mutex
	values map[string]float32
	sets   map[string]int
}

func newGaugeRecorder() *gaugeRecorder {
	return &gaugeRecorder{values: map[string]float32{}, sets: map[string]int{}}
}

var _ metrics.MetricSink = (*gaugeRecorder)(nil)

func seriesKey(key []string, labels []metrics.Label) string {
	var b strings.Builder
	b.WriteString(strings.Join(key, "."))
	b.WriteByte('{')
	for i, l := range labels {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.Name + "=" + l.Value)
	}
	b.WriteByte('}')
	return b.String()
}

func (r *gaugeRecorder) SetGaugeWithLabels(key []string, val float32, labels []metrics.Label) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := seriesKey(key, labels)
	r.values[k] = val
	r.sets[k]++
}

func (r *gaugeRecorder) SetGauge(key []string, val float32) { r.SetGaugeWithLabels(key, val, nil) }
func (r *gaugeRecorder) EmitKey([]string, float32)          {}
func (r *gaugeRecorder) IncrCounter([]string, float32)      {}
func (r *gaugeRecorder) IncrCounterWithLabels([]string, float32, []metrics.Label) {
}
func (r *gaugeRecorder) AddSample([]string, float32)                            {}
func (r *gaugeRecorder) AddSampleWithLabels([]string, float32, []metrics.Label) {}

// value returns the last value of the series and whether it was set.
func (r *gaugeRecorder) value(key []string, labels []metrics.Label) (float32, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.values[seriesKey(key, labels)]
	return v, ok
}

// count is how many times the series was set.
func (r *gaugeRecorder) count(key []string, labels []metrics.Label) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sets[seriesKey(key, labels)]
}

// withPrefix returns the series whose names start with prefix.
func (r *gaugeRecorder) withPrefix(prefix string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k := range r.values {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

// countingCollector counts its collections and sets one gauge each time.
type countingCollector struct {
	mu    sync.Mutex
	times []time.Time
}

func (c *countingCollector) collect(g gaugeSink, now time.Time, _ []*structs.Allocation) {
	c.mu.Lock()
	c.times = append(c.times, now)
	c.mu.Unlock()
	g.SetGaugeWithLabels([]string{"test", "collected"}, 1, nil)
}

func (c *countingCollector) collected() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.times...)
}

func TestMetricsPublisher_CollectsAtOnceThenEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newGaugeRecorder()
		lookups := 0
		coll := &countingCollector{}
		p := &metricsPublisher{
			interval:   time.Second,
			sink:       func() gaugeSink { lookups++; return rec },
			allocs:     func() allocSnapshot { return allocSnapshot{} },
			collectors: []metricsCollector{coll},
		}
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		done := make(chan struct{})
		go func() { defer close(done); p.run(ctx) }()

		synctest.Wait()
		must.Eq(t, []time.Time{start}, coll.collected())

		time.Sleep(3500 * time.Millisecond)
		synctest.Wait()
		got := coll.collected()
		must.Eq(t, []time.Time{start, start.Add(time.Second), start.Add(2 * time.Second), start.Add(3 * time.Second)}, got)
		// The sink is looked up at each collection, so that the publisher
		// follows the agent's sinks when they are replaced.
		must.Eq(t, 4, lookups)
		must.Eq(t, 4, rec.count([]string{"test", "collected"}, nil))

		cancel()
		<-done
		time.Sleep(5 * time.Second)
		must.Len(t, 4, coll.collected())
	})
}

func TestClient_MetricsPublisherFollowsTheSwitches(t *testing.T) {
	for _, tc := range []struct {
		name       string
		node, allc bool
		want       []string
	}{
		{name: "both off", want: []string{}},
		{name: "node", node: true, want: []string{"*client.hostMetrics"}},
		{name: "allocation", allc: true, want: []string{"*client.allocMetrics"}},
		{name: "both", node: true, allc: true, want: []string{"*client.hostMetrics", "*client.allocMetrics"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testClient(t, newFakeServer(), mock.New(nil), func(cfg *Config) {
				cfg.PublishNodeMetrics = tc.node
				cfg.PublishAllocationMetrics = tc.allc
			})
			p := c.newMetricsPublisher()
			must.NotNil(t, p)
			must.NotNil(t, p.counts, must.Sprint("the allocation counts are emitted whatever the switches"))
			must.NotNil(t, p.maxRun, must.Sprint("and so are the max_run_duration counters"))
			got := []string{}
			for _, coll := range p.collectors {
				got = append(got, typeName(coll))
			}
			must.Eq(t, tc.want, got)
			must.Eq(t, time.Second, p.interval, must.Sprint("the default collection interval"))
		})
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *hostMetrics:
		return "*client.hostMetrics"
	case *allocMetrics:
		return "*client.allocMetrics"
	}
	return "unknown"
}

// TestClient_PublishesNodeAndAllocationMetrics runs a client with both
// switches on: the node's gauges carry its identity, a running task's
// gauges appear with the allocation's labels, and they are no longer set
// once the allocation has stopped.
func TestClient_PublishesNodeAndAllocationMetrics(t *testing.T) {
	rec, m := recordingMetrics(t)

	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil), func(cfg *Config) {
		cfg.NodeClass = "batch"
		cfg.PublishNodeMetrics = true
		cfg.PublishAllocationMetrics = true
		cfg.MetricsInterval = 20 * time.Millisecond
		cfg.Metrics = m
	})
	<-c.Registered()
	node := []metrics.Label{
		{Name: "node_id", Value: c.NodeID()},
		{Name: "datacenter", Value: "dc1"},
		{Name: "node_class", Value: "batch"},
		{Name: "node_pool", Value: "default"},
	}
	total := []string{"nomad", "client", "unallocated", "memory"}
	waitfor.True(t, "the node's gauges", func() bool {
		_, ok := rec.value(total, node)
		return ok
	})

	a := mockAlloc(c.NodeID(), map[string]any{"run_for": "1h"})
	srv.place(a)
	task := append([]metrics.Label{
		{Name: "alloc_id", Value: a.ID},
		{Name: "job", Value: "job"},
		{Name: "namespace", Value: "default"},
		{Name: "task_group", Value: "group"},
		{Name: "task", Value: "work"},
	}, node...)
	allocated := []string{"nomad", "client", "allocs", "memory", "allocated"}
	waitfor.True(t, "the task's gauges", func() bool {
		_, ok := rec.value(allocated, task)
		return ok
	})
	v, _ := rec.value(allocated, task)
	must.Eq(t, float32(32<<20), v)
	allocMem := []string{"nomad", "client", "allocated", "memory"}
	waitfor.True(t, "the node's allocated memory to count the allocation", func() bool {
		v, _ := rec.value(allocMem, node)
		return v == 32
	})

	srv.stop(a.ID)
	waitfor.True(t, "the allocation to stop", func() bool {
		return serverStatus(srv, a.ID) == structs.AllocClientStatusComplete
	})
	// Once the tasks are dead their gauges are set no more, while the
	// node's go on. Two node collections first: one may have been under
	// way, with a list of allocations from before the stop.
	hostSets := rec.count(total, node)
	waitfor.True(t, "two more collections", func() bool { return rec.count(total, node) >= hostSets+2 })
	settled := rec.count(allocated, task)
	hostSets = rec.count(total, node)
	waitfor.True(t, "five more collections", func() bool { return rec.count(total, node) >= hostSets+5 })
	must.Eq(t, settled, rec.count(allocated, task))
	waitfor.True(t, "the node's allocated memory to drop", func() bool {
		v, _ := rec.value(allocMem, node)
		return v == 0
	})
}

// recordingMetrics is a go-metrics instance, named as the agent names its
// metrics, whose gauges go to the recorder it returns.
func recordingMetrics(t *testing.T) (*gaugeRecorder, *metrics.Metrics) {
	t.Helper()
	rec := newGaugeRecorder()
	mc := metrics.DefaultConfig("nomad")
	mc.EnableHostname = false
	mc.EnableRuntimeMetrics = false
	m, err := metrics.New(mc, rec)
	must.NoError(t, err)
	return rec, m
}
