package agent

import (
	"net/http"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// An index-enforcing register that finds another index answers with
// Nomad's wording, which Nomad's client exports as
// RegisterEnforceIndexErrPrefix and its CLI matches (job run -check-index).
func TestJobRegister_EnforceIndexWording(t *testing.T) {
	a := testAgent(t)
	const prefix = "Enforcing job modify index"

	body := map[string]any{"Job": batchJobJSON("enforced"), "EnforceIndex": true, "JobModifyIndex": 10}
	resp := do(t, a, http.MethodPut, "/v1/jobs", body)
	must.Eq(t, http.StatusConflict, resp.code, must.Sprint(resp))
	must.True(t, strings.HasPrefix(resp.String(), prefix+" 10: job does not exist"), must.Sprint(resp))

	reg := registerJob(t, a, batchJobJSON("enforced"))
	body["JobModifyIndex"] = reg.JobModifyIndex + 1000
	resp = do(t, a, http.MethodPut, "/v1/jobs", body)
	must.Eq(t, http.StatusConflict, resp.code, must.Sprint(resp))
	must.True(t, strings.HasPrefix(resp.String(), prefix), must.Sprint(resp))
}
