package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/nomad/structs"
)

func TestEvalEndpoints(t *testing.T) {
	a := testAgent(t)
	first := registerJob(t, a, batchJobJSON("maxrun"))
	second := registerJob(t, a, batchJobJSON("maxrun"))
	node := upsertNode(t, a, "7a2f7b5e-0000-4000-8000-000000000001", "node-1")
	alloc := upsertAlloc(t, a, "aaaa1111-0000-4000-8000-000000000001", "maxrun", first.EvalID, node.ID)

	t.Run("read", func(t *testing.T) {
		var eval api.Evaluation
		get(t, a, "/v1/evaluation/"+first.EvalID, &eval)
		must.Eq(t, first.EvalID, eval.ID)
		must.Eq(t, "maxrun", eval.JobID)
		must.Eq(t, structs.EvalTriggerJobRegister, eval.TriggeredBy)
		must.Eq(t, "batch", eval.Type)
		must.SliceEmpty(t, eval.RelatedEvals)
	})

	t.Run("related", func(t *testing.T) {
		resp := get(t, a, "/v1/evaluation/"+first.EvalID+"?related=true", nil)
		var eval api.Evaluation
		must.NoError(t, json.Unmarshal(resp.body, &eval))
		must.Eq(t, first.EvalID, eval.ID)
		must.Len(t, 1, eval.RelatedEvals)
		must.Eq(t, second.EvalID, eval.RelatedEvals[0].ID)
		must.Eq(t, "maxrun", eval.RelatedEvals[0].JobID)
	})

	t.Run("allocations", func(t *testing.T) {
		var stubs []*api.AllocationListStub
		get(t, a, "/v1/evaluation/"+first.EvalID+"/allocations", &stubs)
		must.Len(t, 1, stubs)
		must.Eq(t, alloc.ID, stubs[0].ID)

		get(t, a, "/v1/evaluation/"+second.EvalID+"/allocations", &stubs)
		must.Len(t, 0, stubs)
	})

	t.Run("list and prefix", func(t *testing.T) {
		var evals []*api.Evaluation
		get(t, a, "/v1/evaluations", &evals)
		must.Len(t, 2, evals)

		get(t, a, "/v1/evaluations?prefix="+first.EvalID[:8], &evals)
		must.Len(t, 1, evals)
		must.Eq(t, first.EvalID, evals[0].ID)
	})

	t.Run("unknown", func(t *testing.T) {
		resp := do(t, a, http.MethodGet, "/v1/evaluation/00000000-0000-4000-8000-000000000000", nil)
		must.Eq(t, http.StatusNotFound, resp.code)
		must.Eq(t, "eval not found\n", resp.String())
		resp = do(t, a, http.MethodGet, "/v1/evaluation/x?related=perhaps", nil)
		must.Eq(t, http.StatusBadRequest, resp.code)
	})
}
