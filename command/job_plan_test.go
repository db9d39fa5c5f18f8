package command

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// runPlan runs "job plan" with args and returns its exit code and output.
func runPlan(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ui := cli.NewMockUi()
	cmd := &JobPlanCommand{Meta: Meta{Ui: ui, Stdin: strings.NewReader("")}}
	code = cmd.Run(args)
	return code, ui.OutputWriter.String(), ui.ErrorWriter.String()
}

func TestFormatJobDiff(t *testing.T) {
	edited := &api.JobDiff{
		Type: api.DiffTypeEdited, ID: "maxrun",
		TaskGroups: []*api.TaskGroupDiff{{
			Type: api.DiffTypeEdited, Name: "maxrun",
			Fields: []*api.FieldDiff{
				{Type: api.DiffTypeEdited, Name: "Count", Old: "1", New: "3", Annotations: []string{"forces create"}},
				{Type: api.DiffTypeEdited, Name: "MaxRunDuration", Old: "10000000000", New: "30000000000"},
			},
			Objects: []*api.ObjectDiff{{
				Type: api.DiffTypeEdited, Name: "RestartPolicy",
				Fields: []*api.FieldDiff{
					{Type: api.DiffTypeEdited, Name: "Attempts", Old: "3", New: "5"},
					{Type: api.DiffTypeNone, Name: "Delay", Old: "15000000000", New: "15000000000"},
				},
			}},
			Tasks: []*api.TaskDiff{
				{
					Type: api.DiffTypeEdited, Name: "maxrun", Annotations: []string{"forces create/destroy update"},
					Objects: []*api.ObjectDiff{{
						Type: api.DiffTypeEdited, Name: "Config",
						Fields: []*api.FieldDiff{
							{Type: api.DiffTypeEdited, Name: "args[0]", Old: "1000m", New: "5m"},
							{Type: api.DiffTypeNone, Name: "command", Old: "/bin/sleep", New: "/bin/sleep"},
							{Type: api.DiffTypeAdded, Name: "Delay", New: "7"},
						},
					}},
				},
				{Type: api.DiffTypeNone, Name: "maxrun2"},
			},
			Updates: map[string]uint64{"in-place update": 1, "create": 2},
		}, {
			Type: api.DiffTypeAdded, Name: "extra",
			Fields: []*api.FieldDiff{{Type: api.DiffTypeAdded, Name: "Count", New: "1"}},
			Tasks:  []*api.TaskDiff{{Type: api.DiffTypeAdded, Name: "t", Annotations: []string{"forces create"}}},
		}},
	}
	want := `+/- Job: "maxrun"
+/- Task Group: "maxrun" (2 create, 1 in-place update)
  +/- Count:          "1" => "3" (forces create)
  +/- MaxRunDuration: "10s" => "30s"
  +/- RestartPolicy {
    +/- Attempts: "3" => "5"
        Delay:    "15s"
      }
  +/- Task: "maxrun" (forces create/destroy update)
    +/- Config {
      +/- args[0]: "1000m" => "5m"
          command: "/bin/sleep"
      +   Delay:   "7"
        }
      Task: "maxrun2"
+   Task Group: "extra"
  + Task: "t" (forces create)
`
	must.Eq(t, want, formatJobDiff(edited, false))

	verbose := formatJobDiff(edited, true)
	must.StrContains(t, verbose, "+   Task Group: \"extra\"\n  + Count: \"1\"\n  + Task: \"t\" (forces create)\n")

	none := &api.JobDiff{Type: api.DiffTypeNone, ID: "maxrun", TaskGroups: []*api.TaskGroupDiff{{
		Type: api.DiffTypeNone, Name: "maxrun", Updates: map[string]uint64{"ignore": 1},
		Tasks: []*api.TaskDiff{{Type: api.DiffTypeNone, Name: "maxrun"}},
	}}}
	must.Eq(t, "Job: \"maxrun\"\nTask Group: \"maxrun\" (1 ignore)\n  Task: \"maxrun\"\n", formatJobDiff(none, false))
}

func TestFormatDryRun(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 0, 0, time.Local)
	ok := formatDryRun(&api.JobPlanResponse{}, now)
	must.Eq(t, "Scheduler dry-run:\n- All tasks successfully allocated.\n", ok)

	failed := formatDryRun(&api.JobPlanResponse{
		FailedTGAllocs: map[string]*api.AllocationMetric{"maxrun": {
			NodesEvaluated:     1,
			ConstraintFiltered: map[string]int{"${node.unique.id} != n1": 1},
			CoalescedFailures:  1,
		}},
		CreatedEvals:       []*api.Evaluation{{ID: "e1", Status: api.EvalStatusBlocked}},
		NextPeriodicLaunch: now.Add(90 * time.Second),
	}, now)
	must.Eq(t, `Scheduler dry-run:
- WARNING: Failed to place all allocations.
  Task Group "maxrun" (failed to place 2 allocations):
    * Constraint "${node.unique.id} != n1": 1 node excluded by filter
  The rest would wait in a blocked evaluation until capacity frees up.
- If submitted now, the next periodic launch would be at `+formatTime(now.Add(90*time.Second))+` (1m30s from now).
`, failed)
}

func TestPlanExitCode(t *testing.T) {
	cases := []struct {
		name    string
		updates *api.DesiredUpdates
		want    int
	}{
		{"ignore", &api.DesiredUpdates{Ignore: 3}, 0},
		{"in-place", &api.DesiredUpdates{InPlaceUpdate: 1, Ignore: 1}, 0},
		{"reschedule later", &api.DesiredUpdates{RescheduleLater: 1}, 0},
		{"place", &api.DesiredUpdates{Place: 1}, 1},
		{"stop", &api.DesiredUpdates{Stop: 1}, 1},
		{"migrate", &api.DesiredUpdates{Migrate: 1}, 1},
		{"destructive", &api.DesiredUpdates{DestructiveUpdate: 1}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := &api.JobPlanResponse{Annotations: &api.PlanAnnotations{DesiredTGUpdates: map[string]*api.DesiredUpdates{"g": tc.updates}}}
			must.Eq(t, tc.want, planExitCode(resp))
		})
	}
	must.Eq(t, 0, planExitCode(&api.JobPlanResponse{}))
}

// fakePlanner answers every plan with resp and records the requests.
func fakePlanner(t *testing.T, resp string) (addr string, reqs <-chan api.JobPlanRequest) {
	t.Helper()
	ch := make(chan api.JobPlanRequest, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut || r.URL.Path != "/v1/job/maxrun/plan" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req api.JobPlanRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ch <- req
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Nomad-Index", "14")
		_, _ = w.Write([]byte(resp))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, ch
}

func TestJobPlan_againstFakeAgent(t *testing.T) {
	addr, reqs := fakePlanner(t, `{"JobModifyIndex":12,
		"Annotations":{"DesiredTGUpdates":{"maxrun":{"DestructiveUpdate":1}}},
		"Diff":{"Type":"Edited","ID":"maxrun","TaskGroups":[{"Type":"Edited","Name":"maxrun","Updates":{"create/destroy update":1},
			"Tasks":[{"Type":"Edited","Name":"maxrun","Annotations":["forces create/destroy update"],
				"Objects":[{"Type":"Edited","Name":"Config","Fields":[{"Type":"Edited","Name":"args[0]","Old":"1000m","New":"5m"}]}]}]}]},
		"Warnings":"Job field \"Affinities\" is not supported by Drover and was ignored"}`)

	code, out, errOut := runPlan(t, "-address", addr, "testdata/maxrun.hcl")
	must.Eq(t, 1, code, must.Sprint(errOut))
	req := <-reqs
	must.True(t, req.Diff)
	must.Eq(t, "maxrun", *req.Job.ID)
	must.Eq(t, 10*time.Second, *req.Job.TaskGroups[0].MaxRunDuration)
	must.Eq(t, `Job Warnings:
* Job field "Affinities" is not supported by Drover and was ignored

+/- Job: "maxrun"
+/- Task Group: "maxrun" (1 create/destroy update)
  +/- Task: "maxrun" (forces create/destroy update)
    +/- Config {
      +/- args[0]: "1000m" => "5m"
        }

Scheduler dry-run:
- All tasks successfully allocated.

Job Modify Index: 12
To submit the job with version verification run:

drover job run -check-index 12 testdata/maxrun.hcl

With -check-index the job is submitted only if its modify index on the
server is still 12. If it is not, someone changed the job after this plan
and the plan may no longer describe what the run would do.
`, out)

	code, out, _ = runPlan(t, "-address", addr, "-diff=false", "testdata/maxrun.hcl")
	must.Eq(t, 1, code)
	must.False(t, (<-reqs).Diff)
	must.StrNotContains(t, out, "Job: ")
	must.StrContains(t, out, "Scheduler dry-run:")
}

func TestJobPlan_errorsExit255(t *testing.T) {
	code, _, errOut := runPlan(t)
	must.Eq(t, 255, code)
	must.StrContains(t, errOut, "This command takes one argument: <path>")

	code, _, errOut = runPlan(t, "-nope", "x.hcl")
	must.Eq(t, 255, code)
	must.StrContains(t, errOut, "-nope")

	code, _, errOut = runPlan(t, filepath.Join(t.TempDir(), "missing.hcl"))
	must.Eq(t, 255, code)
	must.StrContains(t, errOut, "read job file")

	code, _, errOut = runPlan(t, "-address", freeAddress(t), "testdata/maxrun.hcl")
	must.Eq(t, 255, code)
	must.StrContains(t, errOut, "Error connecting to Drover at")
}

// placedMaxrun runs testdata/maxrun.hcl on the agent, with an eligible node
// to place it on, and waits until its allocation is placed.
func placedMaxrun(t *testing.T, a *agent.Agent, addr string) *structs.Job {
	t.Helper()
	registerTestNode(t, a, testNodeID, "plan-node", structs.NodeSchedulingEligible)
	runDetached(t, addr, "testdata/maxrun.hcl")
	waitfor.True(t, "the job to be placed", func() bool {
		allocs, err := a.Server().State().AllocsByJob(nil, structs.DefaultNamespace, "maxrun")
		must.NoError(t, err)
		return len(allocs) == 1
	}, wait.Timeout(cliTimeout))
	job, err := a.Server().State().JobByID(nil, structs.DefaultNamespace, "maxrun")
	must.NoError(t, err)
	return job
}

// writeMaxrun writes testdata/maxrun.hcl with a replacement applied.
func writeMaxrun(t *testing.T, old, next string) string {
	t.Helper()
	spec, err := os.ReadFile("testdata/maxrun.hcl")
	must.NoError(t, err)
	must.StrContains(t, string(spec), old)
	path := filepath.Join(t.TempDir(), "maxrun.hcl")
	must.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(spec), old, next, 1)), 0o644))
	return path
}

func TestJobPlan_onTheAgent(t *testing.T) {
	a, addr := testAgent(t)
	job := placedMaxrun(t, a, addr)
	index := strconv.FormatUint(job.JobModifyIndex, 10)

	t.Run("max_run_duration is an in-place update", func(t *testing.T) {
		path := writeMaxrun(t, `max_run_duration = "10s"`, `max_run_duration = "30s"`)
		code, out, errOut := runPlan(t, "-address", addr, path)
		must.Eq(t, 0, code, must.Sprint(errOut))
		must.StrHasPrefix(t, `+/- Job: "maxrun"
+/- Task Group: "maxrun" (1 in-place update)
  +/- MaxRunDuration: "10s" => "30s"
      Task: "maxrun"
      Task: "maxrun2"

Scheduler dry-run:
- All tasks successfully allocated.

Job Modify Index: `+index+`
To submit the job with version verification run:

drover job run -check-index `+index+` `+path+`
`, out)
	})

	t.Run("a config change replaces the allocation", func(t *testing.T) {
		path := writeMaxrun(t, `args    = ["1000m"]`, `args    = ["5m"]`)
		code, out, errOut := runPlan(t, "-address", addr, path)
		must.Eq(t, 1, code, must.Sprint(errOut))
		must.StrContains(t, out, `+/- Task Group: "maxrun" (1 create/destroy update)`)
		must.StrContains(t, out, `+/- Task: "maxrun" (forces create/destroy update)`)
		must.StrContains(t, out, `+/- args[0]: "1000m" => "5m"`)
		must.StrContains(t, out, `    command: "/bin/sleep"`)
	})

	t.Run("unchanged", func(t *testing.T) {
		code, out, errOut := runPlan(t, "-address", addr, "testdata/maxrun.hcl")
		must.Eq(t, 0, code, must.Sprint(errOut))
		must.StrHasPrefix(t, "Job: \"maxrun\"\nTask Group: \"maxrun\" (1 ignore)\n  Task: \"maxrun\"\n  Task: \"maxrun2\"\n", out)
	})

	t.Run("invalid job", func(t *testing.T) {
		code, out, errOut := runPlan(t, "-address", addr, "testdata/service-maxrun.hcl")
		must.Eq(t, 255, code)
		must.Eq(t, "", out)
		must.StrContains(t, errOut, "Unexpected response code: 400")
		must.StrContains(t, errOut, "max_run_duration")
	})

	// Nothing was changed by the plans.
	after, err := a.Server().State().JobByID(nil, structs.DefaultNamespace, "maxrun")
	must.NoError(t, err)
	must.Eq(t, job.Version, after.Version)
}

func TestShellWord(t *testing.T) {
	must.Eq(t, "jobs/maxrun.hcl", shellWord("jobs/maxrun.hcl"))
	must.Eq(t, "-", shellWord("-"))
	must.Eq(t, "'my jobs/max run.hcl'", shellWord("my jobs/max run.hcl"))
	must.Eq(t, `'it'\''s.hcl'`, shellWord("it's.hcl"))
	must.Eq(t, "''", shellWord(""))
}
