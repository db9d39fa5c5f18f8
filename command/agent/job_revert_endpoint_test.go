package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"
)

// jobArgs reads the stored job's version and its task's args.
func jobArgs(t *testing.T, a *Agent, id string) (float64, any) {
	t.Helper()
	var job struct {
		Version    float64
		TaskGroups []struct {
			Tasks []struct{ Config map[string]any }
		}
	}
	get(t, a, "/v1/job/"+id, &job)
	return job.Version, job.TaskGroups[0].Tasks[0].Config["args"]
}

func TestJobRevert(t *testing.T) {
	a := testAgent(t)
	v0 := batchJobJSON("reverted")
	registerJob(t, a, v0)
	v1 := batchJobJSON("reverted")
	v1["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)["Config"] = map[string]any{"command": "/bin/sleep", "args": []string{"2000"}}
	registerJob(t, a, v1)
	version, args := jobArgs(t, a, "reverted")
	must.Eq(t, 1, version)
	must.Eq(t, any([]any{"2000"}), args)

	resp := do(t, a, http.MethodPut, "/v1/job/reverted/revert", map[string]any{"JobID": "reverted", "JobVersion": 0, "EnforcePriorVersion": 1})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var out jobRegisterResponse
	must.NoError(t, json.Unmarshal(resp.body, &out))
	must.Positive(t, out.EvalCreateIndex)
	must.Eq(t, out.Index, indexOf(t, resp))

	// A new version, with version 0's spec.
	version, args = jobArgs(t, a, "reverted")
	must.Eq(t, 2, version)
	must.Eq(t, any([]any{"1000"}), args)
}

func TestJobRevert_Refused(t *testing.T) {
	a := testAgent(t)
	registerJob(t, a, batchJobJSON("reverted"))
	cases := map[string]struct {
		path string
		body map[string]any
		code int
		want string
	}{
		"no such job":       {"/v1/job/none/revert", map[string]any{"JobVersion": 1}, http.StatusNotFound, "job not found"},
		"no such version":   {"/v1/job/reverted/revert", map[string]any{"JobVersion": 7}, http.StatusNotFound, `job "reverted" has no version 7`},
		"current version":   {"/v1/job/reverted/revert", map[string]any{"JobVersion": 0}, http.StatusBadRequest, `can't revert job "reverted" to its current version 0`},
		"enforced version":  {"/v1/job/reverted/revert", map[string]any{"JobVersion": 0, "EnforcePriorVersion": 3}, http.StatusBadRequest, "has version 0; enforcing version 3"},
		"other job in body": {"/v1/job/reverted/revert", map[string]any{"JobID": "other", "JobVersion": 0}, http.StatusBadRequest, `JobID "other" in the body does not match "reverted" in the URL`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := do(t, a, http.MethodPost, tc.path, tc.body)
			must.Eq(t, tc.code, resp.code, must.Sprint(resp))
			must.StrContains(t, resp.String(), tc.want)
		})
	}
}

// Reverting registers the version again, so it needs what registering
// that version needs: submit-raw-exec for a raw_exec task.
func TestJobRevert_NeedsWhatRegisterNeeds(t *testing.T) {
	a, mgmt := aclAgent(t)
	for _, n := range []string{"x", "y"} {
		job := batchJobJSON("reverted")
		job["Meta"] = map[string]string{"n": n}
		resp := doAs(t, a, mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	}

	submitter := tokenWith(t, a, mgmt, "submitter", `namespace "default" { capabilities = ["submit-job", "read-job"] }`)
	resp := doAs(t, a, submitter.SecretID, http.MethodPut, "/v1/job/reverted/revert", map[string]any{"JobVersion": 0})
	must.Eq(t, http.StatusForbidden, resp.code, must.Sprint(resp))

	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/job/reverted/revert", map[string]any{"JobVersion": 0})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
}
