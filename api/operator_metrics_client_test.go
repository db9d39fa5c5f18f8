package api

import (
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	metrics "github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"
)

// inmemDisplay returns GET /v1/metrics as go-metrics' in-memory sink writes
// it, with one gauge, counter and sample.
func inmemDisplay(t *testing.T) string {
	t.Helper()
	sink := metrics.NewInmemSink(time.Hour, time.Hour)
	labels := []metrics.Label{{Name: "alloc_id", Value: "a1"}, {Name: "task_group", Value: "maxrun"}}
	sink.SetGaugeWithLabels([]string{"nomad", "client", "allocs", "max_run_duration", "remaining_seconds"}, 7.5, labels)
	sink.IncrCounterWithLabels([]string{"nomad", "client", "allocs", "max_run_duration", "exceeded"}, 1, labels)
	sink.IncrCounterWithLabels([]string{"nomad", "client", "allocs", "max_run_duration", "exceeded"}, 2, labels)
	sink.AddSample([]string{"nomad", "worker", "invoke_scheduler"}, 4)
	sink.AddSample([]string{"nomad", "worker", "invoke_scheduler"}, 6)

	rec := httptest.NewRecorder()
	out, err := sink.DisplayMetrics(rec, httptest.NewRequest("GET", "/v1/metrics", nil))
	must.NoError(t, err)
	return mustJSON(t, out)
}

func TestOperator_MetricsSummary(t *testing.T) {
	c, reqs := newFakeAgent(t, reply{body: inmemDisplay(t)})

	// Asking for Prometheus' format here would make the answer undecodable.
	q := &QueryOptions{Params: map[string]string{"format": "prometheus"}}
	summary, _, err := c.Operator().MetricsSummary(q)
	must.NoError(t, err)
	checkRequest(t, wantRequest{method: "GET", path: "/v1/metrics"}, nextRequest(t, reqs))
	must.Eq(t, "prometheus", q.Params["format"], must.Sprint("the caller's options are left alone"))

	must.NotEq(t, "", summary.Timestamp)
	must.Len(t, 1, summary.Gauges)
	gauge := summary.Gauges[0]
	must.Eq(t, "nomad.client.allocs.max_run_duration.remaining_seconds", gauge.Name)
	must.Eq(t, float32(7.5), gauge.Value)
	must.Eq(t, map[string]string{"alloc_id": "a1", "task_group": "maxrun"}, gauge.DisplayLabels)

	must.Len(t, 1, summary.Counters)
	counter := summary.Counters[0]
	must.Eq(t, "nomad.client.allocs.max_run_duration.exceeded", counter.Name)
	must.Eq(t, 2, counter.Count)
	must.Eq(t, 3.0, counter.Sum)
	must.Eq(t, 1.0, counter.Min)
	must.Eq(t, 2.0, counter.Max)
	must.Eq(t, 1.5, counter.Mean)
	must.Eq(t, "maxrun", counter.DisplayLabels["task_group"])

	must.Len(t, 1, summary.Samples)
	must.Eq(t, 10.0, summary.Samples[0].Sum)
	must.Positive(t, summary.Samples[0].Stddev)
}

func TestOperator_Metrics(t *testing.T) {
	const text = "# TYPE nomad_client_allocs_max_run_duration_exceeded counter\nnomad_client_allocs_max_run_duration_exceeded{alloc_id=\"a1\"} 1\n"
	runEndpointCases(t, []endpointCase{
		{
			name:  "Prometheus text",
			reply: reply{body: text},
			call: func(t *testing.T, c *Client) {
				raw, err := c.Operator().Metrics(&QueryOptions{Params: map[string]string{"format": "prometheus"}})
				must.NoError(t, err)
				must.Eq(t, text, string(raw))
			},
			want: wantRequest{method: "GET", path: "/v1/metrics", query: url.Values{"format": {"prometheus"}}},
		},
		{
			name:  "JSON",
			reply: reply{body: `{"Timestamp":"2025-01-01 00:00:00 +0000 UTC","Gauges":[]}`},
			call: func(t *testing.T, c *Client) {
				raw, err := c.Operator().Metrics(nil)
				must.NoError(t, err)
				must.StrContains(t, string(raw), `"Gauges"`)
			},
			want: wantRequest{method: "GET", path: "/v1/metrics"},
		},
	})
}
