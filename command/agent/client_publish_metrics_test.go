package agent

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
)

// prometheusBody fetches /v1/metrics?format=prometheus.
func prometheusBody(t *testing.T, a *Agent) string {
	t.Helper()
	resp := do(t, a, http.MethodGet, "/v1/metrics?format=prometheus", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	return resp.String()
}

// waitPrometheus polls the Prometheus output until cond holds on it.
func waitPrometheus(t *testing.T, a *Agent, what string, cond func(string) bool) string {
	t.Helper()
	var body string
	waitfor.True(t, what, func() bool {
		body = prometheusBody(t, a)
		return cond(body)
	}, wait.Gap(50*time.Millisecond))
	return body
}

func TestPublishNodeMetrics_Prometheus(t *testing.T) {
	t.Run("on", func(t *testing.T) {
		a := testClientAgent(t, func(c *config.Config) {
			c.Telemetry.PublishNodeMetrics = true
			c.Telemetry.PublishAllocationMetrics = false
		})
		series := `nomad_client_host_memory_total{node_id="` + a.Client().NodeID() + `",datacenter="dc1",node_class="",node_pool="default"} `
		body := waitPrometheus(t, a, "the host's memory gauge", func(body string) bool {
			return strings.Contains(body, series)
		})
		for _, want := range []string{
			"# TYPE nomad_client_host_memory_available gauge\n",
			"# TYPE nomad_client_uptime gauge\n",
			"# TYPE nomad_client_unallocated_memory gauge\n",
		} {
			must.StrContains(t, body, want)
		}
	})
	t.Run("off", func(t *testing.T) {
		a := testClientAgent(t, func(c *config.Config) {
			c.Telemetry.PublishNodeMetrics = false
			c.Telemetry.PublishAllocationMetrics = false
		})
		// The allocation counts, always published, show that the client's
		// collections have begun; the node's gauges would come with each
		// of them, so none may show over the next intervals.
		waitPrometheus(t, a, "the allocation counts", func(body string) bool {
			return strings.Contains(body, "nomad_client_allocations_running{")
		})
		waitfor.Always(t, "no node gauge is published", 3*a.Config().Telemetry.CollectionInterval, func() bool {
			body := prometheusBody(t, a)
			return !strings.Contains(body, "nomad_client_host_") &&
				!strings.Contains(body, "nomad_client_uptime") &&
				!strings.Contains(body, "nomad_client_unallocated_")
		})
	})
}

// TestPublishAllocationMetrics_Prometheus runs a raw_exec task: its
// resident memory shows under its allocation's labels while it runs, and
// its series go once the job is stopped.
func TestPublishAllocationMetrics_Prometheus(t *testing.T) {
	a := testClientAgent(t, func(c *config.Config) {
		c.Telemetry.PublishNodeMetrics = false
		c.Telemetry.PublishAllocationMetrics = true
	})
	job := map[string]any{
		"ID": "sleeper", "Name": "sleeper", "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name": "group", "Count": 1,
			"Tasks": []any{rawExecTask("nap", "/bin/sleep", "1000")},
		}},
	}
	registerJob(t, a, job)
	stubs := waitJobAllocs(t, a, "sleeper", "allocation running", func(s []*api.AllocationListStub) bool {
		return len(s) == 1 && s[0].ClientStatus == api.AllocClientStatusRunning
	})
	labels := `{alloc_id="` + stubs[0].ID + `",job="sleeper",namespace="default",task_group="group",task="nap",node_id="` + a.Client().NodeID() + `"`
	body := waitPrometheus(t, a, "the task's gauges", func(body string) bool {
		return strings.Contains(body, "nomad_client_allocs_memory_rss"+labels) &&
			strings.Contains(body, "nomad_client_allocs_cpu_total_percent"+labels)
	})
	must.StrContains(t, body, "nomad_client_allocs_memory_allocated"+labels)
	must.StrNotContains(t, body, "nomad_client_host_", must.Sprint("publish_node_metrics is off"))

	resp := do(t, a, http.MethodDelete, "/v1/job/sleeper", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	// The gauges are no longer set, and go once three collection
	// intervals (at least 3 seconds) have passed.
	waitPrometheus(t, a, "the task's series to go", func(body string) bool {
		return !strings.Contains(body, "nomad_client_allocs_memory_rss"+labels)
	})
}
