package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// ineligibleNode registers a ready node the scheduler places nothing on,
// so that only the allocations a test writes are on it.
func ineligibleNode(t *testing.T, a *Agent, id string) *structs.Node {
	t.Helper()
	node := upsertNode(t, a, id, "ineligible-"+id[:4])
	_, err := a.Server().NodeUpdateEligibility(context.Background(), id, structs.NodeSchedulingIneligible)
	must.NoError(t, err)
	stored, err := a.Server().State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	return stored
}

func TestNodeEvaluate(t *testing.T) {
	a := testAgent(t)

	resp := do(t, a, http.MethodPut, "/v1/node/12345678-abcd-efab-cdef-123456789abc/evaluate", nil)
	must.Eq(t, http.StatusNotFound, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "not found")

	// Nothing runs or may run on the node: no evaluation, the node's index.
	node := ineligibleNode(t, a, "6b3a1f7e-0000-4000-8000-000000000001")
	var out nodeUpdateResponse
	resp = do(t, a, http.MethodPost, "/v1/node/"+node.ID+"/evaluate", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.NoError(t, json.Unmarshal(resp.body, &out))
	must.Eq(t, nodeUpdateResponse{EvalIDs: []string{}, NodeModifyIndex: node.ModifyIndex, Index: node.ModifyIndex}, out)

	// An allocation on it: its job gets an evaluation for the node.
	registerJob(t, a, batchJobJSON("evaluated"))
	upsertAlloc(t, a, "6b3a1f7e-0000-4000-8000-0000000000a1", "evaluated", "", node.ID)
	resp = do(t, a, http.MethodPut, "/v1/node/"+node.ID+"/evaluate", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.NoError(t, json.Unmarshal(resp.body, &out))
	must.Len(t, 1, out.EvalIDs)
	must.Positive(t, out.EvalCreateIndex)
	must.Eq(t, out.EvalCreateIndex, indexOf(t, resp))

	eval, err := a.Server().State().EvalByID(nil, out.EvalIDs[0])
	must.NoError(t, err)
	must.NotNil(t, eval)
	must.Eq(t, "evaluated", eval.JobID)
	must.Eq(t, node.ID, eval.NodeID)
	must.Eq(t, structs.EvalTriggerNodeUpdate, eval.TriggeredBy)
}
