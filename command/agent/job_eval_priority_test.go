package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"
)

// A register's EvalPriority and a stop's ?eval_priority= give the write's
// evaluation that priority instead of the job's (50).
func TestJob_EvalPriority(t *testing.T) {
	a := testAgent(t)
	evalPriority := func(id string) int {
		t.Helper()
		eval, err := a.Server().State().EvalByID(nil, id)
		must.NoError(t, err)
		must.NotNil(t, eval)
		return eval.Priority
	}

	resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": batchJobJSON("prio"), "EvalPriority": 97})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var reg jobRegisterResponse
	must.NoError(t, json.Unmarshal(resp.body, &reg))
	must.Eq(t, "", reg.Warnings)
	must.Eq(t, 97, evalPriority(reg.EvalID))

	// Without it, the job's priority.
	reg = registerJob(t, a, batchJobJSON("plain"))
	must.Eq(t, 50, evalPriority(reg.EvalID))

	resp = do(t, a, http.MethodDelete, "/v1/job/prio?eval_priority=98", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var dereg jobDeregisterResponse
	must.NoError(t, json.Unmarshal(resp.body, &dereg))
	must.Eq(t, 98, evalPriority(dereg.EvalID))
}

func TestJob_EvalPriorityRefused(t *testing.T) {
	a := testAgent(t)
	registerJob(t, a, batchJobJSON("prio"))

	resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": batchJobJSON("prio"), "EvalPriority": 101})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "eval priority must be 1 to 100, got 101")

	resp = do(t, a, http.MethodDelete, "/v1/job/prio?eval_priority=high", nil)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), `invalid eval_priority "high"`)

	resp = do(t, a, http.MethodDelete, "/v1/job/prio?eval_priority=0x", nil)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
}
