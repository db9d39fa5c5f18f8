package agent

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/structs"
)

func TestAllocEndpoints(t *testing.T) {
	a := testAgent(t)
	reg := registerJob(t, a, batchJobJSON("maxrun"))
	node := upsertNode(t, a, "7a2f7b5e-0000-4000-8000-000000000001", "node-1")
	first := upsertAlloc(t, a, "aaaa1111-0000-4000-8000-000000000001", "maxrun", reg.EvalID, node.ID)
	second := upsertAlloc(t, a, "bbbb2222-0000-4000-8000-000000000002", "maxrun", reg.EvalID, node.ID)

	t.Run("list", func(t *testing.T) {
		var stubs []*api.AllocationListStub
		get(t, a, "/v1/allocations", &stubs)
		must.SliceContainsSubset(t, allocStubIDs(stubs), []string{first.ID, second.ID}, must.Sprint("other allocations may exist"))

		get(t, a, "/v1/allocations?prefix=aaaa", &stubs)
		must.Len(t, 1, stubs)
		must.Eq(t, first.ID, stubs[0].ID)
		must.Eq(t, "maxrun", stubs[0].JobID)
	})

	t.Run("read", func(t *testing.T) {
		var alloc api.Allocation
		resp := get(t, a, "/v1/allocation/"+first.ID, &alloc)
		must.Eq(t, first.ID, alloc.ID)
		must.NotNil(t, alloc.Job)
		must.Eq(t, "maxrun", *alloc.Job.ID)
		must.Eq(t, first.CreateTime+int64(10*time.Second), alloc.MaxRunDeadline)
		must.Eq(t, strconv.FormatUint(alloc.ModifyIndex, 10), resp.header.Get(httpserver.HeaderIndex))

		resp = do(t, a, http.MethodGet, "/v1/allocation/cccc3333-0000-4000-8000-000000000003", nil)
		must.Eq(t, http.StatusNotFound, resp.code)
		must.Eq(t, "alloc not found\n", resp.String())
	})

	t.Run("stop", func(t *testing.T) {
		resp := do(t, a, http.MethodPost, "/v1/allocation/"+first.ID+"/stop", nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		var out allocStopResponse
		must.NoError(t, json.Unmarshal(resp.body, &out))
		must.NotEq(t, "", out.EvalID)
		must.Positive(t, out.Index)

		var alloc api.Allocation
		get(t, a, "/v1/allocation/"+first.ID, &alloc)
		must.Eq(t, structs.AllocDesiredStatusStop, alloc.DesiredStatus)

		var eval api.Evaluation
		get(t, a, "/v1/evaluation/"+out.EvalID, &eval)
		must.Eq(t, structs.EvalTriggerAllocStop, eval.TriggeredBy)

		resp = do(t, a, http.MethodPut, "/v1/allocation/cccc3333-0000-4000-8000-000000000003/stop", nil)
		must.Eq(t, http.StatusNotFound, resp.code, must.Sprint(resp))
	})
}

func TestAllocEndpoints_TaskStatesParam(t *testing.T) {
	a := testAgent(t)
	reg := registerJob(t, a, batchJobJSON("maxrun"))
	node := upsertNode(t, a, "7a2f7b5e-0000-4000-8000-000000000001", "node-1")
	alloc := upsertAlloc(t, a, "aaaa1111-0000-4000-8000-000000000001", "maxrun", reg.EvalID, node.ID)

	resp := do(t, a, http.MethodGet, "/v1/allocations?task_states=nope", nil)
	must.Eq(t, http.StatusBadRequest, resp.code)

	var stubs []*api.AllocationListStub
	get(t, a, "/v1/allocations?task_states=false", &stubs)
	must.SliceContains(t, allocStubIDs(stubs), alloc.ID)
	for _, stub := range stubs {
		must.Nil(t, stub.TaskStates)
	}
}
