package agent

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/structs"
)

func TestJobEndpoints_RegisterListReadVersionsSummary(t *testing.T) {
	a := testAgent(t)

	reg := registerJob(t, a, batchJobJSON("maxrun"))
	must.NotEq(t, "", reg.EvalID)
	must.Positive(t, reg.EvalCreateIndex)
	must.Positive(t, reg.JobModifyIndex)
	must.Eq(t, "", reg.Warnings)
	registerJob(t, a, batchJobJSON("other"))

	t.Run("list", func(t *testing.T) {
		var stubs []*api.JobListStub
		resp := get(t, a, "/v1/jobs", &stubs)
		must.Len(t, 2, stubs)
		must.Eq(t, "maxrun", stubs[0].ID)
		must.Eq(t, "batch", stubs[0].Type)
		must.Eq(t, structs.JobStatusPending, stubs[0].Status)
		must.NotNil(t, stubs[0].JobSummary)
		must.MapContainsKey(t, stubs[0].JobSummary.Summary, "maxrun")
		index, err := strconv.ParseUint(resp.header.Get(httpserver.HeaderIndex), 10, 64)
		must.NoError(t, err)
		must.GreaterEq(t, reg.JobModifyIndex, index)
		must.Eq(t, "true", resp.header.Get(httpserver.HeaderKnownLeader))
		must.Eq(t, "0", resp.header.Get(httpserver.HeaderLastContact))
	})

	t.Run("prefix list", func(t *testing.T) {
		var stubs []*api.JobListStub
		get(t, a, "/v1/jobs?prefix=max", &stubs)
		must.Len(t, 1, stubs)
		must.Eq(t, "maxrun", stubs[0].ID)

		get(t, a, "/v1/jobs?prefix=nothing", &stubs)
		must.Len(t, 0, stubs)

		get(t, a, "/v1/jobs?namespace=*", &stubs)
		must.Len(t, 2, stubs)
	})

	t.Run("read", func(t *testing.T) {
		var job api.Job
		resp := get(t, a, "/v1/job/maxrun", &job)
		must.Eq(t, "maxrun", *job.ID)
		must.Eq(t, "batch", *job.Type)
		must.Eq(t, "default", *job.Namespace)
		must.Eq(t, "global", *job.Region)
		must.Eq(t, 10*time.Second, *job.TaskGroups[0].MaxRunDuration)
		must.Eq(t, strconv.FormatUint(*job.ModifyIndex, 10), resp.header.Get(httpserver.HeaderIndex))
	})

	t.Run("versions", func(t *testing.T) {
		updated := batchJobJSON("maxrun")
		updated["TaskGroups"].([]any)[0].(map[string]any)["MaxRunDuration"] = int64(20 * time.Second)
		registerJob(t, a, updated)

		resp := get(t, a, "/v1/job/maxrun/versions", nil)
		var raw map[string]json.RawMessage
		must.NoError(t, json.Unmarshal(resp.body, &raw))
		must.Eq(t, "null", string(raw["Diffs"]))
		var out api.JobVersionsResponse
		must.NoError(t, json.Unmarshal(resp.body, &out))
		must.Len(t, 2, out.Versions)
		must.Eq(t, uint64(1), *out.Versions[0].Version)
		must.Eq(t, 20*time.Second, *out.Versions[0].TaskGroups[0].MaxRunDuration)
		must.Eq(t, uint64(0), *out.Versions[1].Version)
	})

	t.Run("summary", func(t *testing.T) {
		var summary api.JobSummary
		get(t, a, "/v1/job/maxrun/summary", &summary)
		must.Eq(t, "maxrun", summary.JobID)
		must.Eq(t, "default", summary.Namespace)
		must.MapContainsKey(t, summary.Summary, "maxrun")
	})

	t.Run("evaluations", func(t *testing.T) {
		var evals []*api.Evaluation
		get(t, a, "/v1/job/maxrun/evaluations", &evals)
		must.SliceNotEmpty(t, evals)
		must.SliceContainsFunc(t, evals, reg.EvalID, func(e *api.Evaluation, id string) bool { return e.ID == id })
		for _, e := range evals {
			must.Eq(t, "maxrun", e.JobID)
		}
	})

	t.Run("deployment", func(t *testing.T) {
		resp := get(t, a, "/v1/job/maxrun/deployment", nil)
		must.Eq(t, "null", strings.TrimSpace(resp.String()))
		must.Eq(t, http.StatusNotFound, do(t, a, http.MethodGet, "/v1/job/nope/deployment", nil).code)
	})

	t.Run("unknown job", func(t *testing.T) {
		for _, path := range []string{"/v1/job/nope", "/v1/job/nope/summary", "/v1/job/nope/versions"} {
			resp := do(t, a, http.MethodGet, path, nil)
			must.Eq(t, http.StatusNotFound, resp.code, must.Sprint(path))
			must.Eq(t, "job not found\n", resp.String())
		}
	})
}

func TestJobEndpoints_UpdateByID(t *testing.T) {
	a := testAgent(t)

	resp := do(t, a, http.MethodPost, "/v1/job/byid", map[string]any{"Job": batchJobJSON("byid")})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var job api.Job
	get(t, a, "/v1/job/byid", &job)
	must.Eq(t, "byid", *job.ID)

	resp = do(t, a, http.MethodPut, "/v1/job/other", map[string]any{"Job": batchJobJSON("byid")})
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), `job ID "byid" in the body does not match "other" in the URL`)
}

func TestJobEndpoints_StopAndPurge(t *testing.T) {
	a := testAgent(t)
	registerJob(t, a, batchJobJSON("stopme"))

	resp := do(t, a, http.MethodDelete, "/v1/job/stopme", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var dereg jobDeregisterResponse
	must.NoError(t, json.Unmarshal(resp.body, &dereg))
	must.NotEq(t, "", dereg.EvalID)
	must.Positive(t, dereg.EvalCreateIndex)
	must.Eq(t, strconv.FormatUint(dereg.Index, 10), resp.header.Get(httpserver.HeaderIndex))

	var job api.Job
	get(t, a, "/v1/job/stopme", &job)
	must.True(t, *job.Stop)

	var eval api.Evaluation
	get(t, a, "/v1/evaluation/"+dereg.EvalID, &eval)
	must.Eq(t, structs.EvalTriggerJobDeregister, eval.TriggeredBy)

	resp = do(t, a, http.MethodDelete, "/v1/job/stopme?purge=true", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, http.StatusNotFound, do(t, a, http.MethodGet, "/v1/job/stopme", nil).code)

	// Stopping a job that is gone succeeds, as in Nomad, and makes no
	// evaluation.
	resp = do(t, a, http.MethodDelete, "/v1/job/stopme", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), `"EvalID":""`)

	resp = do(t, a, http.MethodDelete, "/v1/job/x?purge=maybe", nil)
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), `invalid purge "maybe"`)
}

func TestJobEndpoints_Allocations(t *testing.T) {
	a := testAgent(t)
	reg := registerJob(t, a, batchJobJSON("withallocs"))
	node := upsertNode(t, a, "7a2f7b5e-0000-4000-8000-000000000001", "node-1")
	alloc := upsertAlloc(t, a, "0b6c1d2e-0000-4000-8000-000000000001", "withallocs", reg.EvalID, node.ID)

	var stubs []*api.AllocationListStub
	get(t, a, "/v1/job/withallocs/allocations", &stubs)
	i := slices.IndexFunc(stubs, func(s *api.AllocationListStub) bool { return s.ID == alloc.ID })
	must.NonNegative(t, i)
	must.Eq(t, "maxrun", stubs[i].TaskGroup)
	must.Eq(t, alloc.CreateTime+int64(10*time.Second), stubs[i].MaxRunDeadline)
	for _, stub := range stubs {
		must.Eq(t, "withallocs", stub.JobID)
	}

	get(t, a, "/v1/job/withallocs/allocations?all=true", &stubs)
	must.SliceContains(t, allocStubIDs(stubs), alloc.ID)
	get(t, a, "/v1/job/nope/allocations", &stubs)
	must.Len(t, 0, stubs)
}

func TestJobEndpoints_Warnings(t *testing.T) {
	a := testAgent(t)
	job := batchJobJSON("warned")
	// Fields Drover does not implement and whose absence changes nothing
	// the job does (api/unsupported); the refused ones are in
	// TestUnsupportedFields_RefusedOverHTTP.
	job["UI"] = map[string]any{"Description": "shown by Nomad's UI"}
	job["Spreads"] = []any{}
	job["Update"] = nil
	tg := job["TaskGroups"].([]any)[0].(map[string]any)
	tg["Scaling"] = map[string]any{"Min": 1, "Max": 3}
	tg["Networks"] = []any{}
	tg["Tasks"].([]any)[0].(map[string]any)["Actions"] = []any{map[string]any{"Name": "hello", "Command": "/bin/true"}}

	resp := registerJob(t, a, job)
	lines := strings.Split(resp.Warnings, "\n")
	must.Eq(t, []string{
		`Job field "TaskGroups[0].Scaling" is not supported by Drover and was ignored: only an external autoscaler acts on it; the group runs its count either way`,
		`Job field "TaskGroups[0].Tasks[0].Actions" is not supported by Drover and was ignored: an action runs only when someone invokes it; the task runs the same`,
		`Job field "UI" is not supported by Drover and was ignored: only Nomad's web UI shows it: a description and links`,
	}, lines)

	var stored api.Job
	get(t, a, "/v1/job/warned", &stored)
	must.Eq(t, "warned", *stored.ID)
}

func TestJobEndpoints_BadInput(t *testing.T) {
	a := testAgent(t)

	serviceWithMaxRun := batchJobJSON("svc")
	serviceWithMaxRun["Type"] = "service"

	invalid := batchJobJSON("bad job")
	invalid["Priority"] = 1000
	invalid["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)["Driver"] = ""

	cases := []struct {
		name   string
		method string
		path   string
		body   any
		code   int
		want   []string
	}{
		{"bad json", http.MethodPut, "/v1/jobs", `{"Job": {`, 400, []string{"failed to decode job:"}},
		{"bad json syntax", http.MethodPut, "/v1/jobs", `{"Job": nope}`, 400, []string{"failed to decode job: invalid character"}},
		{"wrong type", http.MethodPut, "/v1/jobs", `{"Job": {"ID": 5}}`, 400, []string{"failed to decode job:", "Job.ID"}},
		{"empty body", http.MethodPut, "/v1/jobs", "", 400, []string{"missing request body"}},
		{"no job", http.MethodPut, "/v1/jobs", `{}`, 400, []string{"has no job"}},
		{"oversize body", http.MethodPut, "/v1/jobs", `{"Job": {"Meta": {"x": "` + strings.Repeat("a", 2*int(config.DefaultLimitsConfig().JobMaxSize)) + `"}}}`, 413, []string{"request body too large: the limit is 8388608 bytes (twice limits.job_max_size)"}},
		{"oversize body elsewhere", http.MethodPut, "/v1/node/n1/eligibility", `{"x": "` + strings.Repeat("a", 1<<20) + `"}`, 413, []string{"request body too large: the limit is 1048576 bytes (limits.http_max_body_size)"}},
		{"unknown job", http.MethodGet, "/v1/job/nope", nil, 404, []string{"job not found"}},
		{"wrong method", http.MethodPatch, "/v1/jobs", nil, 405, []string{"method PATCH not allowed on /v1/jobs"}},
		{"wrong method on item", http.MethodPost, "/v1/job/x/summary", nil, 405, []string{"use GET"}},
		{"unknown path", http.MethodGet, "/v1/nothing", nil, 404, []string{"no such endpoint"}},
		{"NUL in ID", http.MethodGet, "/v1/job/a%00b", nil, 400, []string{`invalid job ID "a\x00b": must contain only printable characters, not U+0000 at byte 2`}},
		{"ESC in ID", http.MethodGet, "/v1/job/a%1Bb", nil, 400, []string{`invalid job ID "a\x1bb": must contain only printable characters, not U+001B at byte 2`}},
		{"too long ID", http.MethodGet, "/v1/job/" + strings.Repeat("x", httpserver.MaxIDLength+1), nil, 400, []string{"invalid job ID: longer than"}},
		{"bad index", http.MethodGet, "/v1/jobs?index=abc", nil, 400, []string{`invalid index "abc"`}},
		{"bad wait", http.MethodGet, "/v1/jobs?index=1&wait=soon", nil, 400, []string{`invalid wait "soon"`}},
		{"other region", http.MethodGet, "/v1/jobs?region=mars", nil, 400, []string{`unknown region "mars"`}},
		{"invalid job lists every problem", http.MethodPut, "/v1/jobs", map[string]any{"Job": invalid}, 400,
			[]string{"invalid job: 3 problems", "whitespace", "priority", "driver"}},
		{"service job with max_run_duration", http.MethodPut, "/v1/jobs", map[string]any{"Job": serviceWithMaxRun}, 400,
			[]string{"invalid job", `"maxrun"`, "max_run_duration"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, a, tc.method, tc.path, tc.body)
			must.Eq(t, tc.code, resp.code, must.Sprint(resp))
			must.StrHasPrefix(t, "text/plain", resp.header.Get("Content-Type"))
			body := resp.String()
			must.Eq(t, 1, strings.Count(body, "\n"), must.Sprintf("one line: %q", body))
			for _, want := range tc.want {
				must.StrContains(t, strings.ToLower(body), strings.ToLower(want))
			}
		})
	}

	t.Run("405 names the allowed methods", func(t *testing.T) {
		resp := do(t, a, http.MethodPatch, "/v1/jobs", nil)
		must.Eq(t, "GET, POST, PUT", resp.header.Get("Allow"))
	})
}

func TestJobEndpoints_ParseAndValidate(t *testing.T) {
	a := testAgent(t)
	hcl := `
job "maxrun" {
  type = "batch"
  group "maxrun" {
    max_run_duration = "10s"
    task "maxrun" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["1000m"]
      }
    }
  }
}`

	t.Run("parse", func(t *testing.T) {
		var job api.Job
		resp := do(t, a, http.MethodPost, "/v1/jobs/parse", api.JobsParseRequest{JobHCL: hcl})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.NoError(t, json.Unmarshal(resp.body, &job))
		must.Eq(t, "maxrun", *job.ID)
		must.Eq(t, 10*time.Second, *job.TaskGroups[0].MaxRunDuration)
		must.Nil(t, job.Priority)
	})

	t.Run("parse canonicalized", func(t *testing.T) {
		var job api.Job
		resp := do(t, a, http.MethodPut, "/v1/jobs/parse", api.JobsParseRequest{JobHCL: hcl, Canonicalize: true})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.NoError(t, json.Unmarshal(resp.body, &job))
		must.Eq(t, structs.DefaultPriority, *job.Priority)
		must.Eq(t, "default", *job.Namespace)
	})

	t.Run("parse error", func(t *testing.T) {
		resp := do(t, a, http.MethodPost, "/v1/jobs/parse", api.JobsParseRequest{JobHCL: `job "x" {`})
		must.Eq(t, http.StatusBadRequest, resp.code)
		must.StrContains(t, resp.String(), "input.hcl:")
	})

	t.Run("validate valid", func(t *testing.T) {
		var out api.JobValidateResponse
		resp := do(t, a, http.MethodPut, "/v1/validate/job", map[string]any{"Job": batchJobJSON("ok")})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.NoError(t, json.Unmarshal(resp.body, &out))
		must.SliceEmpty(t, out.ValidationErrors)
		must.Eq(t, "", out.Error)
	})

	t.Run("validate invalid", func(t *testing.T) {
		job := batchJobJSON("svc")
		job["Type"] = "service"
		job["Priority"] = 1000
		var out api.JobValidateResponse
		resp := do(t, a, http.MethodPost, "/v1/validate/job", map[string]any{"Job": job})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.NoError(t, json.Unmarshal(resp.body, &out))
		must.Len(t, 2, out.ValidationErrors, must.Sprint(out.ValidationErrors))
		must.StrContains(t, out.Error, "max_run_duration")
	})
}

func TestJobEndpoints_PeriodicForce(t *testing.T) {
	a := testAgent(t)
	registerJob(t, a, batchJobJSON("plain"))

	resp := do(t, a, http.MethodPost, "/v1/job/plain/periodic/force", nil)
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), "is not periodic")

	resp = do(t, a, http.MethodPost, "/v1/job/nope/periodic/force", nil)
	must.Eq(t, http.StatusNotFound, resp.code)

	periodic := batchJobJSON("cron")
	periodic["Periodic"] = map[string]any{"Spec": "*/5 * * * *", "SpecType": "cron"}
	registerJob(t, a, periodic)
	resp = do(t, a, http.MethodPut, "/v1/job/cron/periodic/force?region=elsewhere", nil)
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), `unknown region "elsewhere"`)
	resp = do(t, a, http.MethodPut, "/v1/job/cron/periodic/force?region=global", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var forced struct {
		EvalID          string
		EvalCreateIndex uint64
		Index           uint64
	}
	must.NoError(t, json.Unmarshal(resp.body, &forced))
	must.NotEq(t, "", forced.EvalID)
	must.Positive(t, forced.Index)
	must.Eq(t, forced.Index, headerUint(t, resp, "X-Nomad-Index"))

	// The forced launch is a child job with its own evaluation.
	var eval api.Evaluation
	get(t, a, "/v1/evaluation/"+forced.EvalID, &eval)
	must.StrHasPrefix(t, "cron/periodic-", eval.JobID)
}

func headerUint(t *testing.T, resp response, name string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(resp.header.Get(name), 10, 64)
	must.NoError(t, err, must.Sprintf("header %s", name))
	return n
}
