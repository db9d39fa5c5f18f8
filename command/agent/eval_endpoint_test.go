package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
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
		must.SliceNotEmpty(t, eval.RelatedEvals)
		related := ids(eval.RelatedEvals, func(e *api.EvaluationStub) string { return e.ID })
		must.SliceContains(t, related, second.EvalID)
		must.SliceNotContains(t, related, first.EvalID)
		for _, e := range eval.RelatedEvals {
			must.Eq(t, "maxrun", e.JobID)
		}
	})

	t.Run("allocations", func(t *testing.T) {
		var stubs []*api.AllocationListStub
		get(t, a, "/v1/evaluation/"+first.EvalID+"/allocations", &stubs)
		must.SliceContains(t, allocStubIDs(stubs), alloc.ID)
		for _, stub := range stubs {
			must.Eq(t, first.EvalID, stub.EvalID)
		}

		get(t, a, "/v1/evaluation/"+second.EvalID+"/allocations", &stubs)
		must.SliceNotContains(t, allocStubIDs(stubs), alloc.ID)
	})

	t.Run("list and prefix", func(t *testing.T) {
		var evals []*api.Evaluation
		get(t, a, "/v1/evaluations", &evals)
		must.SliceContainsSubset(t, evalIDsOf(evals), []string{first.EvalID, second.EvalID}, must.Sprint("other evaluations may exist"))

		get(t, a, "/v1/evaluations?prefix="+first.EvalID[:8], &evals)
		must.SliceContains(t, evalIDsOf(evals), first.EvalID)
		must.SliceNotContains(t, evalIDsOf(evals), second.EvalID)
	})

	t.Run("unknown", func(t *testing.T) {
		resp := do(t, a, http.MethodGet, "/v1/evaluation/00000000-0000-4000-8000-000000000000", nil)
		must.Eq(t, http.StatusNotFound, resp.code)
		must.Eq(t, "eval not found\n", resp.String())
		resp = do(t, a, http.MethodGet, "/v1/evaluation/x?related=perhaps", nil)
		must.Eq(t, http.StatusBadRequest, resp.code)
	})
}
