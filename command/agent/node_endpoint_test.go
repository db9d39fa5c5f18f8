package agent

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

func TestNodeEndpoints(t *testing.T) {
	a := testAgent(t)
	n1 := upsertNode(t, a, "7a2f7b5e-0000-4000-8000-000000000001", "node-1")
	upsertNode(t, a, "9c3d8e6f-0000-4000-8000-000000000002", "node-2")

	t.Run("list", func(t *testing.T) {
		var stubs []*api.NodeListStub
		get(t, a, "/v1/nodes", &stubs)
		must.Len(t, 2, stubs)
		must.Eq(t, n1.ID, stubs[0].ID)
		must.Eq(t, "node-1", stubs[0].Name)
		must.Eq(t, "127.0.0.1", stubs[0].Address)
		must.Eq(t, structs.NodeStatusReady, stubs[0].Status)
		must.Nil(t, stubs[0].NodeResources)

		get(t, a, "/v1/nodes?prefix=9c3d", &stubs)
		must.Len(t, 1, stubs)
		must.Eq(t, "node-2", stubs[0].Name)

		get(t, a, "/v1/nodes?resources=true", &stubs)
		must.NotNil(t, stubs[0].NodeResources)
		must.Eq(t, int64(8192), stubs[0].NodeResources.Memory.MemoryMB)
	})

	t.Run("read", func(t *testing.T) {
		var node api.Node
		get(t, a, "/v1/node/"+n1.ID, &node)
		must.Eq(t, n1.ID, node.ID)
		must.Eq(t, "dc1", node.Datacenter)
		must.True(t, node.Drivers["raw_exec"].Healthy)

		resp := do(t, a, http.MethodGet, "/v1/node/"+n1.ID[:8], nil)
		must.Eq(t, http.StatusNotFound, resp.code, must.Sprint("a prefix is not an ID"))
		must.Eq(t, "node not found\n", resp.String())
	})

	t.Run("allocations", func(t *testing.T) {
		reg := registerJob(t, a, batchJobJSON("maxrun"))
		alloc := upsertAlloc(t, a, "aaaa1111-0000-4000-8000-000000000001", "maxrun", reg.EvalID, n1.ID)
		var allocs []*api.Allocation
		get(t, a, "/v1/node/"+n1.ID+"/allocations", &allocs)
		i := slices.IndexFunc(allocs, func(x *api.Allocation) bool { return x.ID == alloc.ID })
		must.NonNegative(t, i)
		must.NotNil(t, allocs[i].Job)
		for _, x := range allocs {
			must.Eq(t, n1.ID, x.NodeID)
		}
	})

	t.Run("eligibility", func(t *testing.T) {
		resp := do(t, a, http.MethodPost, "/v1/node/"+n1.ID+"/eligibility", map[string]any{"NodeID": n1.ID, "Eligibility": "ineligible"})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		var out nodeUpdateResponse
		must.NoError(t, json.Unmarshal(resp.body, &out))
		must.Positive(t, out.NodeModifyIndex)

		var node api.Node
		get(t, a, "/v1/node/"+n1.ID, &node)
		must.Eq(t, structs.NodeSchedulingIneligible, node.SchedulingEligibility)

		resp = do(t, a, http.MethodPut, "/v1/node/"+n1.ID+"/eligibility", map[string]any{"Eligibility": "sometimes"})
		must.Eq(t, http.StatusBadRequest, resp.code)
		must.StrContains(t, resp.String(), `invalid Eligibility "sometimes"`)

		resp = do(t, a, http.MethodPut, "/v1/node/"+n1.ID+"/eligibility", map[string]any{"NodeID": "other", "Eligibility": "eligible"})
		must.Eq(t, http.StatusBadRequest, resp.code)

		resp = do(t, a, http.MethodPut, "/v1/node/00000000-0000-4000-8000-000000000000/eligibility", map[string]any{"Eligibility": "eligible"})
		must.Eq(t, http.StatusNotFound, resp.code, must.Sprint(resp))
	})

	t.Run("drain", func(t *testing.T) {
		body := map[string]any{"NodeID": n1.ID, "DrainSpec": map[string]any{"Deadline": int64(time.Hour)}}
		resp := do(t, a, http.MethodPost, "/v1/node/"+n1.ID+"/drain", body)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))

		var node api.Node
		get(t, a, "/v1/node/"+n1.ID, &node)
		must.NotNil(t, node.DrainStrategy)
		must.Eq(t, time.Hour, node.DrainStrategy.Deadline)
		must.False(t, node.DrainStrategy.ForceDeadline.IsZero())

		resp = do(t, a, http.MethodPut, "/v1/node/"+n1.ID+"/drain", map[string]any{"DrainSpec": nil, "MarkEligible": true})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		get(t, a, "/v1/node/"+n1.ID, &node)
		must.Nil(t, node.DrainStrategy)
		must.Eq(t, structs.NodeSchedulingEligible, node.SchedulingEligibility)
	})
}

// A node is shown with an empty SecretID, as Nomad shows it: never the
// node's secret, and never without the field, which Nomad's clients read.
func TestNodeRead_SecretIDEmpty(t *testing.T) {
	a := testAgent(t)
	node := upsertNode(t, a, "6b3a1f7e-0000-4000-8000-000000000003", "secret")
	var raw map[string]any
	get(t, a, "/v1/node/"+node.ID, &raw)
	secret, ok := raw["SecretID"]
	must.True(t, ok, must.Sprint("no SecretID field"))
	must.Eq(t, any(""), secret)
}
