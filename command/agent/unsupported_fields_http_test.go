package agent

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

const seeDifferences = "; see website/content/docs/differences.md"

// TestUnsupportedFields_RefusedOverHTTP submits jobs with fields Drover
// does not implement and whose absence would change what runs: register
// and plan refuse them with a 400 naming each, validate lists them, and
// nothing is registered.
func TestUnsupportedFields_RefusedOverHTTP(t *testing.T) {
	a := testAgent(t)

	cases := []struct {
		name   string
		mutate func(job, group, task map[string]any)
		want   []string
	}{
		{"a multiregion job would run in one region", func(job, _, _ map[string]any) {
			job["Multiregion"] = map[string]any{"Regions": []any{map[string]any{"Name": "east"}}}
		}, []string{`Job field "Multiregion" is not supported by Drover: the job would run in this region only` + seeDifferences}},
		{"a drain pace that is not Nomad's default", func(_, group, _ map[string]any) {
			group["Migrate"] = map[string]any{"MaxParallel": 2}
		}, []string{`Job field "TaskGroups[0].Migrate" is not supported by Drover: a node drain would not pace the allocations it moves` + seeDifferences}},
		{"every refused field and every other problem at once", func(job, group, task map[string]any) {
			group["Volumes"] = map[string]any{"data": map[string]any{"Type": "csi", "Source": "data"}}
			task["Templates"] = []any{map[string]any{"EmbeddedTmpl": "{{ key \"x\" }}", "DestPath": "local/x"}}
			task["Vault"] = map[string]any{"Role": "app"}
			job["Priority"] = 1000
		}, []string{
			`Job field "TaskGroups[0].Tasks[0].Vault" is not supported by Drover: the task would run without its Vault token and secrets` + seeDifferences,
			`Job priority must be between 1 and 100, got 1000`,
			`Task group "maxrun" volume "data": type "csi" is not supported: a CSI volume needs a CSI plugin, which Drover cannot run; use a host volume (type = "host")`,
			// A template is Drover's now; one that needs a Consul server is not.
			`Task group "maxrun" task "maxrun" template #1 (local/x): function "key" needs a Consul server, and Drover's agent has no "consul" block to name one`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := batchJobJSON("refused")
			group := job["TaskGroups"].([]any)[0].(map[string]any)
			task := group["Tasks"].([]any)[0].(map[string]any)
			tc.mutate(job, group, task)

			for _, path := range []string{"/v1/jobs", "/v1/job/refused/plan"} {
				resp := do(t, a, http.MethodPut, path, map[string]any{"Job": job})
				must.Eq(t, http.StatusBadRequest, resp.code, must.Sprintf("%s: %s", path, resp))
				noun := "problems"
				if len(tc.want) == 1 {
					noun = "problem"
				}
				must.Eq(t, "invalid job: "+strconv.Itoa(len(tc.want))+" "+noun+": "+strings.Join(tc.want, "; ")+"\n", string(resp.body), must.Sprint(path))
			}

			resp := do(t, a, http.MethodPut, "/v1/validate/job", map[string]any{"Job": job})
			must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
			var out api.JobValidateResponse
			must.NoError(t, json.Unmarshal(resp.body, &out))
			must.Eq(t, tc.want, out.ValidationErrors)

			resp = do(t, a, http.MethodGet, "/v1/job/refused", nil)
			must.Eq(t, http.StatusNotFound, resp.code, must.Sprint("nothing was registered"))
		})
	}

	resp := do(t, a, http.MethodGet, "/v1/agent/self", nil)
	must.Eq(t, http.StatusOK, resp.code)
}

// TestUnsupportedFields_NomadsClient drives the agent with Nomad's own
// client. A service job as Nomad's client canonicalises it carries
// Nomad's defaults for update and migrate: it registers, each one a
// warning (ephemeral_disk's default Drover takes). Asking for more than the default is refused.
func TestUnsupportedFields_NomadsClient(t *testing.T) {
	a := testAgent(t)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	svc := nomadapi.NewServiceJob("svc", "svc", "global", 50)
	svc.AddTaskGroup(nomadapi.NewTaskGroup("g", 1).AddTask(nomadapi.NewTask("t", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"60"})))
	svc.Canonicalize()
	reg, _, err := client.Jobs().Register(svc, nil)
	must.NoError(t, err)
	const def = "is not supported by Drover and was ignored: it holds Nomad's default, which asks for nothing a job without it does not"
	must.Eq(t, []string{
		`Job field "TaskGroups[0].Migrate" ` + def,
	}, strings.Split(reg.Warnings, "\n"))

	canary := 1
	svc.TaskGroups[0].Update.Canary = &canary
	_, _, err = client.Jobs().Register(svc, nil)
	must.ErrorContains(t, err, `update: canary = 1: Drover does not place canaries yet`)
}

// TestUnsupportedFields_ParseNamesNomadBlocks sends a jobspec with a Nomad
// block to /v1/jobs/parse: the 400 says it is Nomad's, where, and where
// the differences are listed.
func TestUnsupportedFields_ParseNamesNomadBlocks(t *testing.T) {
	a := testAgent(t)
	hcl := "job \"web\" {\n  multiregion {\n    region \"east\" {}\n  }\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      config {\n        command = \"/bin/true\"\n      }\n    }\n  }\n}\n"
	resp := do(t, a, http.MethodPut, "/v1/jobs/parse", map[string]any{"JobHCL": hcl})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.Eq(t, `input.hcl:2,3-14: "multiregion" is a Nomad block that Drover does not support yet; see website/content/docs/differences.md. Ignoring it would change what runs: the job would run in this region only.`+"\n",
		string(resp.body))
}
