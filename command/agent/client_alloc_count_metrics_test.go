package agent

import (
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
)

// TestAllocationCounts_Prometheus runs a raw_exec task on a dev agent with
// both publish switches off: the node's allocation counts are emitted all
// the same, with the running allocation counted under the node's labels.
func TestAllocationCounts_Prometheus(t *testing.T) {
	a := testClientAgent(t, func(c *config.Config) {
		c.Telemetry.PublishNodeMetrics = false
		c.Telemetry.PublishAllocationMetrics = false
	})
	job := map[string]any{
		"ID": "counted", "Name": "counted", "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name": "group", "Count": 1,
			"Tasks": []any{rawExecTask("nap", "/bin/sleep", "1000")},
		}},
	}
	registerJob(t, a, job)
	waitJobAllocs(t, a, "counted", "allocation running", func(s []*api.AllocationListStub) bool {
		return len(s) == 1 && s[0].ClientStatus == api.AllocClientStatusRunning
	})

	labels := `{node_id="` + a.Client().NodeID() + `",datacenter="dc1",node_class="",node_pool="default"}`
	body := waitPrometheus(t, a, "one running allocation", func(body string) bool {
		return strings.Contains(body, "nomad_client_allocations_running"+labels+" 1\n")
	})
	for _, want := range []string{
		"# TYPE nomad_client_allocations_running gauge\n",
		"nomad_client_allocations_pending" + labels + " 0\n",
		"nomad_client_allocations_blocked" + labels + " 0\n",
		"nomad_client_allocations_migrating" + labels + " 0\n",
		"nomad_client_allocations_terminal" + labels + " 0\n",
	} {
		must.StrContains(t, body, want)
	}
	must.StrNotContains(t, body, "nomad_client_host_", must.Sprint("publish_node_metrics is off"))
	must.StrNotContains(t, body, "nomad_client_allocs_", must.Sprint("publish_allocation_metrics is off"))
}
