package agent

import (
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// A task's own network (Nomad's Resources.Networks) is registered as
// ports of the group's host network, and reads back there.
func TestJobEndpoints_TaskNetworkJoinsTheGroups(t *testing.T) {
	a := testAgent(t)
	job := batchJobJSON("tasknet")
	taskOf := func(j map[string]any) map[string]any {
		return j["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)
	}
	taskOf(job)["Resources"] = map[string]any{"CPU": 100, "MemoryMB": 64, "Networks": []any{map[string]any{
		"ReservedPorts": []any{map[string]any{"Label": "proxy", "Value": 8081}},
		"DynamicPorts":  []any{map[string]any{"Label": "admin"}},
	}}}
	registerJob(t, a, job)

	var got api.Job
	get(t, a, "/v1/job/tasknet", &got)
	tg := got.TaskGroups[0]
	must.Nil(t, tg.Tasks[0].Resources.Networks)
	must.Len(t, 1, tg.Networks)
	must.Eq(t, "host", tg.Networks[0].Mode)
	must.Eq(t, []api.Port{{Label: "proxy", Value: 8081}}, tg.Networks[0].ReservedPorts)
	must.Eq(t, []api.Port{{Label: "admin"}}, tg.Networks[0].DynamicPorts)

	clash := batchJobJSON("clash")
	clash["TaskGroups"].([]any)[0].(map[string]any)["Networks"] = []any{map[string]any{
		"DynamicPorts": []any{map[string]any{"Label": "proxy"}},
	}}
	taskOf(clash)["Resources"] = map[string]any{"Networks": []any{map[string]any{
		"DynamicPorts": []any{map[string]any{"Label": "proxy"}},
	}}}
	resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": clash})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), `network port "proxy" is both in the task's network block and in the group's`)
}
