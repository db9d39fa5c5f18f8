package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"
)

func TestNodePurge(t *testing.T) {
	a := testAgent(t)

	resp := do(t, a, http.MethodPut, "/v1/node/12345678-abcd-efab-cdef-123456789abc/purge", nil)
	must.Eq(t, http.StatusNotFound, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "not found")

	// The node goes at once, and the job of its allocation gets an
	// evaluation to replace it.
	node := ineligibleNode(t, a, "6b3a1f7e-0000-4000-8000-000000000002")
	registerJob(t, a, batchJobJSON("purged"))
	upsertAlloc(t, a, "6b3a1f7e-0000-4000-8000-0000000000a2", "purged", "", node.ID)
	resp = do(t, a, http.MethodPost, "/v1/node/"+node.ID+"/purge", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var out nodeUpdateResponse
	must.NoError(t, json.Unmarshal(resp.body, &out))
	must.Len(t, 1, out.EvalIDs)
	must.Positive(t, out.NodeModifyIndex)
	must.Eq(t, out.Index, indexOf(t, resp))

	resp = do(t, a, http.MethodGet, "/v1/node/"+node.ID, nil)
	must.Eq(t, http.StatusNotFound, resp.code, must.Sprint(resp))
}
