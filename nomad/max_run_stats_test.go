package nomad

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/maxrunstats"
	"github.com/drover-io/drover/structs"
)

// statsSink is an in-memory go-metrics instance with the agent's service
// prefix, and its sink.
func statsSink(t *testing.T) (*metrics.Metrics, *metrics.InmemSink) {
	t.Helper()
	sink := metrics.NewInmemSink(time.Hour, time.Hour)
	cfg := metrics.DefaultConfig("nomad")
	cfg.EnableHostname = false
	cfg.EnableRuntimeMetrics = false
	m, err := metrics.New(cfg, sink)
	must.NoError(t, err)
	return m, sink
}

func labelsOf(labels []metrics.Label) map[string]string {
	out := map[string]string{}
	for _, l := range labels {
		out[l.Name] = l.Value
	}
	return out
}

// counterTotal is the counter key's total and emission count for labels.
func counterTotal(sink *metrics.InmemSink, key []string, want map[string]string) (float64, int) {
	name := "nomad." + strings.Join(key, ".")
	var total float64
	var n int
	for _, intv := range sink.Data() {
		for _, c := range intv.Counters {
			if c.Name == name && maps.Equal(labelsOf(c.Labels), want) {
				total += c.Sum
				n += c.Count
			}
		}
	}
	return total, n
}

// gaugeValue is the last value of gauge key for labels.
func gaugeValue(sink *metrics.InmemSink, key []string, want map[string]string) (float32, bool) {
	name := "nomad." + strings.Join(key, ".")
	data := sink.Data()
	for i := len(data) - 1; i >= 0; i-- {
		for _, g := range data[i].Gauges {
			if g.Name == name && maps.Equal(labelsOf(g.Labels), want) {
				return g.Value, true
			}
		}
	}
	return 0, false
}

// TestServer_MaxRunStatsFromClientReports: a client's report of a timeout
// reaches the server's counter through the FSM.
func TestServer_MaxRunStatsFromClientReports(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	m, sink := statsSink(t)
	s.maxRunStats.SetSink(m)
	ctx := testCtx(t)
	alloc := maxRunAllocOnServer(t, s, structs.JobTypeBatch, new(time.Hour), time.Now())
	_, err := s.UpdateAllocsFromClient(ctx, []*structs.Allocation{{
		ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete, ClientDescription: structs.AllocTimeoutReasonMaxRunDuration,
	}})
	must.NoError(t, err)
	total, _ := counterTotal(sink, maxrunstats.MetricExceeded, map[string]string{"namespace": "default", "job": "bounded", "task_group": "group"})
	must.Eq(t, 1.0, total)
}
