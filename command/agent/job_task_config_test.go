package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"
)

// typoJob is a batch job whose raw_exec task misspells "command".
func typoJob(id string) map[string]any {
	job := batchJobJSON(id)
	task := job["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)
	task["Config"] = map[string]any{"comand": "/bin/true"}
	return job
}

const typoProblem = `Task group "maxrun" task "maxrun": raw_exec config: unsupported config key "comand": did you mean "command"? (supported: command, args, work_dir)`

// TestTaskConfig_RefusedOnSubmit: register and plan refuse a task config
// its driver does not take, naming the group, the task and the key;
// validate lists it and says that driver config was validated.
func TestTaskConfig_RefusedOnSubmit(t *testing.T) {
	a := testAgent(t)

	resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": typoJob("typo")})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, string(resp.body), typoProblem)
	must.StrContains(t, string(resp.body), `config key "command" is required`)

	resp = do(t, a, http.MethodPut, "/v1/job/typo/plan", map[string]any{"Job": typoJob("typo")})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, string(resp.body), typoProblem)

	resp = do(t, a, http.MethodPut, "/v1/validate/job", map[string]any{"Job": typoJob("typo")})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var v struct {
		DriverConfigValidated bool
		ValidationErrors      []string
	}
	must.NoError(t, json.Unmarshal(resp.body, &v))
	must.True(t, v.DriverConfigValidated)
	must.SliceContains(t, v.ValidationErrors, typoProblem)

	// Nothing of the job was stored.
	resp = do(t, a, http.MethodGet, "/v1/job/typo", nil)
	must.Eq(t, http.StatusNotFound, resp.code)
}

// TestTaskConfig_ReferencesPass: a value the client interpolates is not
// judged before it is.
func TestTaskConfig_ReferencesPass(t *testing.T) {
	a := testAgent(t)
	job := batchJobJSON("refs")
	task := job["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)
	task["Config"] = map[string]any{"command": "${NOMAD_TASK_DIR}/run", "work_dir": "${NOMAD_ALLOC_DIR}"}
	registerJob(t, a, job)
}

// TestTaskConfig_ParseNamesThePosition: /v1/jobs/parse answers a typo in
// a config with its line.
func TestTaskConfig_ParseNamesThePosition(t *testing.T) {
	a := testAgent(t)
	hcl := "job \"web\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      config {\n        command = \"/bin/true\"\n        arg = [\"x\"]\n      }\n    }\n  }\n}\n"
	resp := do(t, a, http.MethodPut, "/v1/jobs/parse", map[string]any{"JobHCL": hcl})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.Eq(t, `input.hcl:7,9-12: Invalid raw_exec config; Task "t": unsupported config key "arg": did you mean "args"? (supported: command, args, work_dir).`+"\n",
		string(resp.body))
}
