package client

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	metrics "github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func allocWithStatus(id, status string) *structs.Allocation {
	return &structs.Allocation{ID: id, ClientStatus: status}
}

func TestCountAllocs(t *testing.T) {
	for _, tc := range []struct {
		name string
		snap allocSnapshot
		want allocCounts
	}{
		{name: "none", want: allocCounts{}},
		{
			name: "each status",
			snap: allocSnapshot{active: []*structs.Allocation{
				allocWithStatus("a", structs.AllocClientStatusPending),
				allocWithStatus("b", structs.AllocClientStatusRunning),
				allocWithStatus("c", structs.AllocClientStatusRunning),
				allocWithStatus("d", structs.AllocClientStatusComplete),
				allocWithStatus("e", structs.AllocClientStatusFailed),
				allocWithStatus("f", structs.AllocClientStatusLost),
				allocWithStatus("g", structs.AllocClientStatusUnknown),
			}},
			want: allocCounts{running: 2, pending: 1, terminal: 2},
		},
		{
			name: "finished runners are terminal",
			snap: allocSnapshot{
				active:   []*structs.Allocation{allocWithStatus("a", structs.AllocClientStatusRunning)},
				finished: 4,
			},
			want: allocCounts{running: 1, terminal: 4},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, countAllocs(tc.snap))
		})
	}
}

var allocCountKeys = [][]string{
	{"client", "allocations", "running"},
	{"client", "allocations", "pending"},
	{"client", "allocations", "blocked"},
	{"client", "allocations", "migrating"},
	{"client", "allocations", "terminal"},
}

// countValues returns the recorded value of each count gauge, in the
// order of allocCountKeys, failing when one was never set.
func countValues(t *testing.T, rec *gaugeRecorder, prefix []string, labels []metrics.Label) []float32 {
	t.Helper()
	out := make([]float32, 0, len(allocCountKeys))
	for _, k := range allocCountKeys {
		key := append(append([]string(nil), prefix...), k...)
		v, ok := rec.value(key, labels)
		must.True(t, ok, must.Sprintf("%v%v was not set", key, labels))
		out = append(out, v)
	}
	return out
}

func TestAllocCountMetrics_SetsEveryGaugeWithTheNodeLabels(t *testing.T) {
	node := &structs.Node{ID: "n1", Datacenter: "dc1", NodeClass: "batch", NodePool: "default"}
	labels := nodeMetricLabels(node)
	m := newAllocCountMetrics(labels)
	rec := newGaugeRecorder()

	m.collect(rec, allocSnapshot{
		active: []*structs.Allocation{
			allocWithStatus("a", structs.AllocClientStatusRunning),
			allocWithStatus("b", structs.AllocClientStatusPending),
		},
		finished: 2,
	})
	// running, pending, blocked, migrating, terminal.
	must.Eq(t, []float32{1, 1, 0, 0, 2}, countValues(t, rec, nil, labels))
	must.Len(t, 5, rec.withPrefix("client.allocations."))

	// Zeros are set too, so that a count that drops shows the drop.
	m.collect(rec, allocSnapshot{})
	must.Eq(t, []float32{0, 0, 0, 0, 0}, countValues(t, rec, nil, labels))
	must.Eq(t, 2, rec.count(metricAllocationsBlocked, labels))
}

// TestMetricsPublisher_EmitsCountsEveryInterval runs the loop with no
// collector, as a client with both switches off does: the counts follow
// the allocations at once and at every interval.
func TestMetricsPublisher_EmitsCountsEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newGaugeRecorder()
		labels := nodeMetricLabels(&structs.Node{ID: "n1", Datacenter: "dc1", NodePool: "default"})
		snaps := make(chan allocSnapshot, 1)
		current := allocSnapshot{}
		p := &metricsPublisher{
			interval: time.Second,
			sink:     func() gaugeSink { return rec },
			allocs: func() allocSnapshot {
				select {
				case current = <-snaps:
				default:
				}
				return current
			},
			counts: newAllocCountMetrics(labels),
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); p.run(ctx) }()

		synctest.Wait()
		must.Eq(t, []float32{0, 0, 0, 0, 0}, countValues(t, rec, nil, labels))
		must.Eq(t, 1, rec.count(metricAllocationsRunning, labels))

		snaps <- allocSnapshot{active: []*structs.Allocation{allocWithStatus("a", structs.AllocClientStatusRunning)}}
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		must.Eq(t, []float32{1, 0, 0, 0, 0}, countValues(t, rec, nil, labels))

		snaps <- allocSnapshot{finished: 1}
		time.Sleep(time.Second)
		synctest.Wait()
		must.Eq(t, []float32{0, 0, 0, 0, 1}, countValues(t, rec, nil, labels))
		must.Eq(t, 3, rec.count(metricAllocationsRunning, labels))

		cancel()
		<-done
	})
}

// TestClient_PublishesAllocationCountsWithTheSwitchesOff runs a client
// that publishes neither node nor allocation metrics: the counts still
// follow a pending, a running and a finished allocation, and a stop.
func TestClient_PublishesAllocationCountsWithTheSwitchesOff(t *testing.T) {
	rec, m := recordingMetrics(t)

	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil), func(cfg *Config) {
		cfg.PublishNodeMetrics = false
		cfg.PublishAllocationMetrics = false
		cfg.MetricsInterval = 20 * time.Millisecond
		cfg.Metrics = m
		// The allocation whose start never ends is killed at shutdown.
		cfg.DestroyOnShutdown = true
	})
	<-c.Registered()
	node := []metrics.Label{
		{Name: "node_id", Value: c.NodeID()},
		{Name: "datacenter", Value: "dc1"},
		{Name: "node_class", Value: ""},
		{Name: "node_pool", Value: "default"},
	}
	prefix := []string{"nomad"}
	counts := func() []float32 {
		out := make([]float32, 0, len(allocCountKeys))
		for _, k := range allocCountKeys {
			v, _ := rec.value(append(append([]string(nil), prefix...), k...), node)
			out = append(out, v)
		}
		return out
	}
	waitfor.True(t, "the counts of an empty node", func() bool {
		_, ok := rec.value([]string{"nomad", "client", "allocations", "terminal"}, node)
		return ok
	})
	must.Eq(t, []float32{0, 0, 0, 0, 0}, countValues(t, rec, prefix, node))

	pending := mockAlloc(c.NodeID(), map[string]any{"run_for": "1h", "start_block_for": "1h"})
	running := mockAlloc(c.NodeID(), map[string]any{"run_for": "1h"})
	done := mockAlloc(c.NodeID(), map[string]any{"run_for": "1ms"})
	for _, a := range []*structs.Allocation{pending, running, done} {
		srv.place(a)
	}
	// running, pending, blocked, migrating, terminal.
	want := []float32{1, 1, 0, 0, 1}
	waitfor.True(t, "one allocation in each state", func() bool {
		return slices.Equal(counts(), want)
	})

	srv.stop(running.ID)
	want = []float32{0, 1, 0, 0, 2}
	waitfor.True(t, "the stopped allocation to count as terminal", func() bool {
		return slices.Equal(counts(), want)
	})
	must.Eq(t, []string{}, nonCountSeries(rec), must.Sprint("no other client gauge with both switches off"))
}

// nonCountSeries lists the client series other than the counts.
func nonCountSeries(rec *gaugeRecorder) []string {
	out := []string{}
	for _, k := range rec.withPrefix("nomad.client.") {
		if !strings.HasPrefix(k, "nomad.client.allocations.") {
			out = append(out, k)
		}
	}
	return out
}
