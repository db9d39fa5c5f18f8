package agent

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metrics "github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
)

func metricsAgent(t *testing.T, mutate ...func(*config.Config)) *Agent {
	return testAgent(t, append([]func(*config.Config){func(c *config.Config) {
		c.Telemetry.DisableHostname = true
	}}, mutate...)...)
}

var allocLabels = []metrics.Label{
	{Name: "alloc_id", Value: "a1"},
	{Name: "job", Value: "maxrun"},
	{Name: "task_group", Value: "maxrun"},
}

func TestMetricsEndpoint_JSON(t *testing.T) {
	a := metricsAgent(t)

	var summary metrics.MetricsSummary
	waitfor.True(t, "the counter and the gauge in the summary", func() bool {
		metrics.IncrCounterWithLabels([]string{"client", "allocs", "max_run_duration", "exceeded"}, 1, allocLabels)
		metrics.SetGaugeWithLabels([]string{"client", "allocs", "max_run_duration", "remaining_seconds"}, 4, allocLabels)
		get(t, a, "/v1/metrics", &summary)
		hasCounter := slices.ContainsFunc(summary.Counters, func(c metrics.SampledValue) bool {
			return c.Name == "nomad.client.allocs.max_run_duration.exceeded" && c.DisplayLabels["alloc_id"] == "a1"
		})
		hasGauge := slices.ContainsFunc(summary.Gauges, func(g metrics.GaugeValue) bool {
			return g.Name == "nomad.client.allocs.max_run_duration.remaining_seconds" && g.Value == 4
		})
		return hasCounter && hasGauge
	}, wait.Gap(50*time.Millisecond))
	must.NotEq(t, "", summary.Timestamp)
}

func TestMetricsEndpoint_Prometheus(t *testing.T) {
	a := metricsAgent(t)
	metrics.IncrCounterWithLabels([]string{"client", "allocs", "max_run_duration", "exceeded"}, 1, allocLabels)
	metrics.SetGaugeWithLabels([]string{"client", "allocs", "max_run_duration", "remaining_seconds"}, 4, allocLabels)
	metrics.AddSample([]string{"test", "latency"}, 2)

	var body string
	waitfor.True(t, "the runtime gauges", func() bool {
		resp := do(t, a, http.MethodGet, "/v1/metrics?format=prometheus", nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.Eq(t, prometheusContentType, resp.header.Get("Content-Type"))
		body = resp.String()
		// Runtime gauges come from the agent's own collection loop.
		return strings.Contains(body, "nomad_runtime_num_goroutines ")
	}, wait.Gap(50*time.Millisecond))
	for _, want := range []string{
		"# TYPE nomad_client_allocs_max_run_duration_exceeded counter\n",
		`nomad_client_allocs_max_run_duration_exceeded{alloc_id="a1",job="maxrun",task_group="maxrun"} 1` + "\n",
		"# TYPE nomad_client_allocs_max_run_duration_remaining_seconds gauge\n",
		`nomad_client_allocs_max_run_duration_remaining_seconds{alloc_id="a1",job="maxrun",task_group="maxrun"} 4` + "\n",
		"# TYPE nomad_test_latency summary\n",
		"nomad_test_latency_count 1\n",
		"nomad_test_latency_sum 2\n",
		"# TYPE nomad_runtime_num_goroutines gauge\n",
	} {
		must.StrContains(t, body, want)
	}
}

func TestMetricsEndpoint_ServicePrefix(t *testing.T) {
	a := metricsAgent(t, func(c *config.Config) { c.Telemetry.ServicePrefix = "drover" })
	metrics.IncrCounter([]string{"custom"}, 3)
	resp := do(t, a, http.MethodGet, "/v1/metrics?format=prometheus", nil)
	must.Eq(t, http.StatusOK, resp.code)
	must.StrContains(t, resp.String(), "drover_custom 3\n")
}

func TestMetricsEndpoint_Errors(t *testing.T) {
	a := metricsAgent(t, func(c *config.Config) { c.Telemetry.PrometheusMetrics = false })

	resp := do(t, a, http.MethodGet, "/v1/metrics?format=prometheus", nil)
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), "prometheus_metrics = true")

	resp = do(t, a, http.MethodGet, "/v1/metrics?format=xml", nil)
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), `unknown metrics format "xml"`)

	var summary map[string]json.RawMessage
	get(t, a, "/v1/metrics", &summary)
	must.MapContainsKeys(t, summary, []string{"Timestamp", "Gauges", "Counters", "Samples"})
}
