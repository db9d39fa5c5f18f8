package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestJobEvaluate(t *testing.T) {
	a := testAgent(t)

	resp := do(t, a, http.MethodPut, "/v1/job/none/evaluate", nil)
	must.Eq(t, http.StatusNotFound, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "not found")

	reg := registerJob(t, a, batchJobJSON("again"))
	for _, body := range []any{nil, map[string]any{"JobID": "again", "EvalOptions": map[string]any{"ForceReschedule": false}}} {
		resp = do(t, a, http.MethodPost, "/v1/job/again/evaluate", body)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		var out jobRegisterResponse
		must.NoError(t, json.Unmarshal(resp.body, &out))
		must.Eq(t, reg.JobModifyIndex, out.JobModifyIndex)
		must.Greater(t, reg.EvalCreateIndex, out.EvalCreateIndex)
		must.Eq(t, out.EvalCreateIndex, indexOf(t, resp))

		eval, err := a.Server().State().EvalByID(nil, out.EvalID)
		must.NoError(t, err)
		must.NotNil(t, eval)
		must.Eq(t, "again", eval.JobID)
		must.Eq(t, structs.EvalTriggerJobEval, eval.TriggeredBy)
		must.Eq(t, reg.JobModifyIndex, eval.JobModifyIndex)
	}
}

func TestJobEvaluate_Refused(t *testing.T) {
	a := testAgent(t)
	registerJob(t, a, batchJobJSON("again"))
	periodic := batchJobJSON("cron")
	periodic["Periodic"] = map[string]any{"Enabled": true, "Spec": "*/30 * * * *", "SpecType": "cron"}
	registerJob(t, a, periodic)

	cases := map[string]struct {
		path string
		body any
		want string
	}{
		"other job in body": {"/v1/job/again/evaluate", map[string]any{"JobID": "other"}, `JobID "other" in the body does not match "again" in the URL`},
		"force reschedule":  {"/v1/job/again/evaluate", map[string]any{"EvalOptions": map[string]any{"ForceReschedule": true}}, "EvalOptions.ForceReschedule is not supported by Drover"},
		"periodic":          {"/v1/job/cron/evaluate", nil, `can't evaluate periodic job "cron"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := do(t, a, http.MethodPut, tc.path, tc.body)
			must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
			must.StrContains(t, resp.String(), tc.want)
		})
	}
}
