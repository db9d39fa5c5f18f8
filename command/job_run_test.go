package command

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// The JSON "job run -output" prints must be what Nomad's official client
// would send, so it must decode into the official types with equal values.
func TestJobRunOutput_DecodesIntoNomadAPI(t *testing.T) {
	code, out, errOut := runCLI(t, "", "job", "run", "-output", "testdata/maxrun.hcl")
	must.Eq(t, 0, code, must.Sprint(errOut))

	var req nomadapi.JobRegisterRequest
	must.NoError(t, json.Unmarshal([]byte(out), &req))
	job := req.Job
	must.NotNil(t, job)
	must.Eq(t, "maxrun", *job.ID)
	must.Eq(t, "batch", *job.Type)
	must.Len(t, 1, job.TaskGroups)

	tg := job.TaskGroups[0]
	must.Eq(t, "maxrun", *tg.Name)
	must.NotNil(t, tg.MaxRunDuration)
	must.Eq(t, 10*time.Second, *tg.MaxRunDuration)
	must.Len(t, 2, tg.Tasks)
	must.Eq(t, "maxrun", tg.Tasks[0].Name)
	must.Eq(t, "raw_exec", tg.Tasks[0].Driver)
	must.Eq[any](t, "/bin/sleep", tg.Tasks[0].Config["command"])
	must.Eq[any](t, []any{"1000m"}, tg.Tasks[0].Config["args"])
	must.Eq(t, "maxrun2", tg.Tasks[1].Name)
	must.Eq[any](t, []any{"2s"}, tg.Tasks[1].Config["args"])
	must.Nil(t, tg.Tasks[0].Lifecycle)
}

func TestJobRunOutput_CarriesLifecycleAndCount(t *testing.T) {
	spec := `
job "life" {
  type = "batch"
  group "g" {
    count = 3
    task "setup" {
      driver = "raw_exec"
      lifecycle {
        hook    = "prestart"
        sidecar = false
      }
      config { command = "/bin/true" }
    }
    task "cleanup" {
      driver = "raw_exec"
      lifecycle { hook = "poststop" }
      config { command = "/bin/true" }
    }
    task "main" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`
	code, out, errOut := runCLI(t, spec, "job", "run", "-output", "-")
	must.Eq(t, 0, code, must.Sprint(errOut))
	var req nomadapi.JobRegisterRequest
	must.NoError(t, json.Unmarshal([]byte(out), &req))
	tg := req.Job.TaskGroups[0]
	must.Eq(t, 3, *tg.Count)
	must.Eq(t, "prestart", tg.Tasks[0].Lifecycle.Hook)
	must.Eq(t, "poststop", tg.Tasks[1].Lifecycle.Hook)
	must.Nil(t, tg.Tasks[2].Lifecycle)
}

func TestJobRunOutput_Variables(t *testing.T) {
	spec := `
variable "duration" {
  type    = string
  default = "1m"
}
job "vars" {
  type = "batch"
  group "g" {
    max_run_duration = var.duration
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`
	code, out, errOut := runCLI(t, spec, "job", "run", "-output", "-var", "duration=90s", "-")
	must.Eq(t, 0, code, must.Sprint(errOut))
	var req nomadapi.JobRegisterRequest
	must.NoError(t, json.Unmarshal([]byte(out), &req))
	must.Eq(t, 90*time.Second, *req.Job.TaskGroups[0].MaxRunDuration)
}

func TestJobRun_Detach(t *testing.T) {
	_, addr := testAgent(t)
	code, out, errOut := runCLI(t, "", "job", "run", "-address", addr, "-detach", "testdata/maxrun.hcl")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, regexp.MustCompile(`^Job registration successful\nEvaluation ID: [0-9a-f]{8}-[0-9a-f-]{27}\n$`), out)
	must.Eq(t, "", errOut)
}

func TestJobRun_ServerRejectsInvalidJob(t *testing.T) {
	_, addr := testAgent(t)
	code, out, errOut := runCLI(t, "", "job", "run", "-address", addr, "-detach", "testdata/service-maxrun.hcl")
	must.Eq(t, 1, code)
	must.Eq(t, "", out)
	must.StrHasPrefix(t, "Error submitting job: Unexpected response code: 400 (", errOut)
	must.StrContains(t, errOut, "max_run_duration")
}

func TestJobRun_CheckIndex(t *testing.T) {
	_, addr := testAgent(t)
	code, _, errOut := runCLI(t, "", "job", "run", "-address", addr, "-detach", "-check-index", "0", "testdata/maxrun.hcl")
	must.Eq(t, 0, code, must.Sprint(errOut))

	// The job exists now, so "only if it does not exist yet" is refused.
	code, _, errOut = runCLI(t, "", "job", "run", "-address", addr, "-detach", "-check-index", "0", "testdata/maxrun.hcl")
	must.Eq(t, 1, code)
	must.StrHasPrefix(t, "Error submitting job: Unexpected response code: ", errOut)
	must.StrContains(t, errOut, "modify index")

	code, _, errOut = runCLI(t, "", "job", "run", "-address", addr, "-check-index", "x", "testdata/maxrun.hcl")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `-check-index must be a non-negative integer, not "x"`)
}

func TestJobRun_PeriodicJobPrintsNextLaunch(t *testing.T) {
	_, addr := testAgent(t)
	path := writeJob(t, "nightly", `periodic {
    crons            = ["0 3 * * *"]
    time_zone        = "UTC"
    prohibit_overlap = true
  }`)
	code, out, errOut := runCLI(t, "", "job", "run", "-address", addr, path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, regexp.MustCompile(
		`^Job registration successful\nApproximate next launch time: \S+T\S+ \(\S+ from now\)\n$`), out)
}

// fakeRegistrar answers PUT /v1/jobs with the given evaluation and warnings
// and hands every other request to next.
func fakeRegistrar(t *testing.T, evalID, warnings string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Path == "/v1/jobs" {
			var req api.JobRegisterRequest
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Job == nil || *req.Job.ID != "maxrun" {
				t.Errorf("bad register request: %v", err)
			}
			writeJSON(w, 10, api.JobRegisterResponse{EvalID: evalID, Warnings: warnings})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestJobRun_MonitorsTheEvaluation(t *testing.T) {
	script := &evalScript{
		states: map[string][]api.Evaluation{evalID1: {
			scriptedEval(evalID1, "pending"),
			scriptedEval(evalID1, "complete"),
		}},
		allocs: map[string]map[int][]*api.AllocationListStub{evalID1: {
			1: {{ID: allocID, NodeID: nodeID, TaskGroup: "maxrun", CreateIndex: 25}},
		}},
	}
	srv := httptest.NewServer(fakeRegistrar(t, evalID1, "Job field \"Affinities\" is not supported by Drover and was ignored", script.bind(t)))
	t.Cleanup(srv.Close)

	code, out, errOut := runCLI(t, "", "job", "run", "-address", srv.URL, "-verbose", "testdata/maxrun.hcl")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrHasPrefix(t, "Job Warnings:\n* Job field \"Affinities\" is not supported by Drover and was ignored\n\n==> ", out)
	must.StrContains(t, out, `: Monitoring evaluation "`+evalID1+`"`)
	must.StrContains(t, out, `: Allocation "`+allocID+`" created: node "`+nodeID+`", group "maxrun"`)
	must.StrContains(t, out, `: Evaluation "`+evalID1+`" finished with status "complete"`)
}

func TestJobRun_PlacementFailureExitsTwo(t *testing.T) {
	failed := scriptedEval(evalID1, "complete")
	failed.FailedTGAllocs = map[string]*api.AllocationMetric{"maxrun": {NodesEvaluated: 0}}
	script := &evalScript{states: map[string][]api.Evaluation{evalID1: {failed}}}
	srv := httptest.NewServer(fakeRegistrar(t, evalID1, "", script.bind(t)))
	t.Cleanup(srv.Close)

	code, out, _ := runCLI(t, "", "job", "run", "-address", srv.URL, "testdata/maxrun.hcl")
	must.Eq(t, exitPlacementFailure, code)
	must.StrNotContains(t, out, "Job Warnings")
	must.StrContains(t, out, `failed to place all allocations:`)
	must.StrContains(t, out, "      * No nodes were eligible for evaluation\n")
}

func TestJobWarnings(t *testing.T) {
	must.Eq(t, "Job Warnings:\n* one\n* two\n", jobWarnings("one\n\n  two  \n"))
}

func TestJobRun_MonitorsPlacementOnTheAgent(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)

	code, out, errOut := runCLIWithin(t, "", "job", "run", "-address", addr, "testdata/maxrun.hcl")
	must.Eq(t, exitOK, code, must.Sprint(out, errOut))
	must.RegexMatch(t, regexp.MustCompile(`^`+
		`==> \S+: Monitoring evaluation "[0-9a-f]{8}"\n`+
		`    \S+: Evaluation triggered by job "maxrun"\n`+
		`    \S+: Allocation "[0-9a-f]{8}" created: node "f5a9b8c7", group "maxrun"\n`+
		`    \S+: Evaluation status changed: "pending" -> "complete"\n`+
		`==> \S+: Evaluation "[0-9a-f]{8}" finished with status "complete"\n$`), out)

	// Stopping follows the evaluation that stops the allocation.
	code, out, errOut = runCLIWithin(t, "", "job", "stop", "-address", addr, "maxrun")
	must.Eq(t, exitOK, code, must.Sprint(out, errOut))
	must.StrContains(t, out, `Monitoring evaluation "`)
	must.StrContains(t, out, `finished with status "complete"`)
}

func TestJobRun_NoCapacityExitsTwo(t *testing.T) {
	_, addr := testAgent(t)

	code, out, errOut := runCLIWithin(t, "", "job", "run", "-address", addr, "testdata/maxrun.hcl")
	must.Eq(t, exitPlacementFailure, code, must.Sprint(out, errOut))
	must.StrContains(t, out, `finished with status "complete" but failed to place all allocations:`)
	must.StrContains(t, out, `Task Group "maxrun" (failed to place 1 allocation):`)
	must.StrContains(t, out, "waiting for additional capacity to place remainder")

	code, out, _ = runCLI(t, "", "job", "status", "-address", addr, "maxrun")
	must.Eq(t, 0, code)
	must.StrContains(t, out, "\nPlacement Failure\nTask Group \"maxrun\" (failed to place 1 allocation):\n")
}
