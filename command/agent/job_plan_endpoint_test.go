package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"
	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// runningMaxrun registers a node and the batch job "maxrun" and waits until
// the scheduler has placed its allocation.
func runningMaxrun(t *testing.T, a *Agent) *structs.Allocation {
	t.Helper()
	upsertNode(t, a, "5f0e6a3c-1111-4222-8333-444455556666", "plan-node")
	registerJob(t, a, batchJobJSON("maxrun"))
	var allocs []*structs.Allocation
	waitfor.True(t, "the job to be placed", func() bool {
		var err error
		allocs, err = a.Server().State().AllocsByJob(nil, structs.DefaultNamespace, "maxrun")
		must.NoError(t, err)
		return len(allocs) == 1
	})
	settle(t, a, "maxrun")
	return allocs[0]
}

// settle waits until the writes that follow a placement have landed: the
// job's evaluations are terminal and the state has seen no write for a
// moment (the keyring's first key is written at leadership too), so
// that a test may compare indexes before and after a read.
func settle(t *testing.T, a *Agent, jobID string) {
	t.Helper()
	store := a.Server().State()
	waitfor.True(t, "the job's evaluations to finish and the state to be quiet", func() bool {
		evals, err := store.EvalsByJob(nil, structs.DefaultNamespace, jobID)
		must.NoError(t, err)
		for _, e := range evals {
			if !e.TerminalStatus() {
				return false
			}
		}
		ws := memdb.NewWatchSet()
		_, err = store.LatestIndexWatch(ws)
		must.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		return ws.WatchCtx(ctx) != nil
	})
}

func planBody(job map[string]any, diff bool) map[string]any {
	return map[string]any{"Job": job, "Diff": diff}
}

func TestJobPlanEndpoint_maxRunDurationChangeIsInPlace(t *testing.T) {
	a := testAgent(t)
	runningMaxrun(t, a)
	before, err := a.Server().State().LatestIndex()
	must.NoError(t, err)

	job := batchJobJSON("maxrun")
	job["TaskGroups"].([]any)[0].(map[string]any)["MaxRunDuration"] = int64(30 * time.Second)
	resp := do(t, a, http.MethodPut, "/v1/job/maxrun/plan", planBody(job, true))
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, "application/json", resp.header.Get("Content-Type"))
	must.Eq(t, strconv.FormatUint(before, 10), resp.header.Get(httpserver.HeaderIndex))

	// Nomad's own types read the answer.
	var out nomadapi.JobPlanResponse
	must.NoError(t, json.Unmarshal(resp.body, &out))
	stored, err := a.Server().State().JobByID(nil, structs.DefaultNamespace, "maxrun")
	must.NoError(t, err)
	must.Eq(t, stored.JobModifyIndex, out.JobModifyIndex)
	u := out.Annotations.DesiredTGUpdates["maxrun"]
	must.NotNil(t, u)
	must.Eq(t, uint64(1), u.InPlaceUpdate)
	must.Eq(t, uint64(0), u.Place+u.Stop+u.DestructiveUpdate)
	must.MapEmpty(t, out.FailedTGAllocs)
	must.Eq(t, "", out.Warnings)
	must.Eq(t, "Edited", out.Diff.Type)
	tg := out.Diff.TaskGroups[0]
	must.Eq(t, map[string]uint64{"in-place update": 1}, tg.Updates)
	must.Len(t, 1, tg.Fields)
	must.Eq(t, nomadapi.FieldDiff{Type: "Edited", Name: "MaxRunDuration", Old: "10000000000", New: "30000000000"}, *tg.Fields[0])

	after, err := a.Server().State().LatestIndex()
	must.NoError(t, err)
	must.Eq(t, before, after, must.Sprint("a plan writes nothing"))
}

func TestJobPlanEndpoint_postWithoutDiff(t *testing.T) {
	a := testAgent(t)
	job := batchJobJSON("fresh")
	job["UI"] = map[string]any{"Description": "shown by Nomad's UI"}
	resp := do(t, a, http.MethodPost, "/v1/job/fresh/plan", map[string]any{"Job": job, "PolicyOverride": true})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))

	var out api.JobPlanResponse
	must.NoError(t, json.Unmarshal(resp.body, &out))
	must.Nil(t, out.Diff)
	must.Eq(t, uint64(0), out.JobModifyIndex)
	must.MapContainsKey(t, out.FailedTGAllocs, "maxrun", must.Sprint("no node to place on"))
	must.StrContains(t, out.Warnings, `Job field "UI" is not supported by Drover`)
	must.StrContains(t, out.Warnings, `Request field "PolicyOverride" is not supported by Drover`)

	job404 := do(t, a, http.MethodGet, "/v1/job/fresh", nil)
	must.Eq(t, http.StatusNotFound, job404.code, must.Sprint("the plan registered nothing"))
}

func TestJobPlanEndpoint_badRequests(t *testing.T) {
	a := testAgent(t)
	service := batchJobJSON("svc")
	service["Type"] = "service"

	cases := []struct {
		name, method, path string
		body               any
		code               int
		contains           []string
	}{
		{
			name: "service with max_run_duration", method: http.MethodPut, path: "/v1/job/svc/plan",
			body: planBody(service, true), code: http.StatusBadRequest,
			contains: []string{"invalid job", `Task group "maxrun"`, "max_run_duration"},
		},
		{
			name: "ID mismatch", method: http.MethodPut, path: "/v1/job/other/plan",
			body: planBody(batchJobJSON("maxrun"), true), code: http.StatusBadRequest,
			contains: []string{`job ID "maxrun" in the body does not match "other" in the URL`},
		},
		{
			name: "no job", method: http.MethodPut, path: "/v1/job/maxrun/plan",
			body: `{"Diff": true}`, code: http.StatusBadRequest, contains: []string{"has no job"},
		},
		{
			name: "bad JSON", method: http.MethodPut, path: "/v1/job/maxrun/plan",
			body: `{"Job": `, code: http.StatusBadRequest, contains: []string{"failed to decode job plan request"},
		},
		{
			name: "no body", method: http.MethodPut, path: "/v1/job/maxrun/plan",
			code: http.StatusBadRequest, contains: []string{"missing request body"},
		},
		{
			name: "GET", method: http.MethodGet, path: "/v1/job/maxrun/plan",
			code: http.StatusMethodNotAllowed, contains: []string{"use POST or PUT"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, a, tc.method, tc.path, tc.body)
			must.Eq(t, tc.code, resp.code, must.Sprint(resp))
			for _, s := range tc.contains {
				must.StrContains(t, resp.String(), s)
			}
		})
	}
}

// Nomad's own client plans through the endpoint.
func TestJobPlanEndpoint_officialClient(t *testing.T) {
	a := testAgent(t)
	runningMaxrun(t, a)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	maxRun := 30 * time.Second
	job := nomadapi.NewBatchJob("maxrun", "maxrun", "global", 50)
	job.Datacenters = []string{"dc1"}
	group := nomadapi.NewTaskGroup("maxrun", 1)
	group.MaxRunDuration = &maxRun
	group.AddTask(nomadapi.NewTask("maxrun", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"1000"}))
	job.AddTaskGroup(group)

	resp, wm, err := client.Jobs().Plan(job, true, nil)
	must.NoError(t, err)
	must.Positive(t, wm.LastIndex)
	must.Eq(t, uint64(1), resp.Annotations.DesiredTGUpdates["maxrun"].InPlaceUpdate)
	must.Eq(t, "MaxRunDuration", resp.Diff.TaskGroups[0].Fields[0].Name)
}
