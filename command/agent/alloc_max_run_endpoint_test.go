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
)

func TestAllocMaxRunDurationEndpoint(t *testing.T) {
	a := testAgent(t)
	reg := registerJob(t, a, batchJobJSON("maxrun"))
	node := upsertNode(t, a, "7a2f7b5e-0000-4000-8000-000000000001", "node-1")
	alloc := upsertAlloc(t, a, "aaaa1111-0000-4000-8000-000000000001", "maxrun", reg.EvalID, node.ID)
	path := "/v1/allocation/" + alloc.ID + "/max-run-duration"

	for _, method := range []string{http.MethodPut, http.MethodPost} {
		budget := 20 * time.Second
		if method == http.MethodPost {
			budget = 5 * time.Second
		}
		resp := do(t, a, method, path, map[string]any{"MaxRunDuration": int64(budget)})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		var out allocMaxRunResponse
		must.NoError(t, json.Unmarshal(resp.body, &out))
		must.Eq(t, budget, out.MaxRunDuration)
		must.Eq(t, alloc.CreateTime+int64(budget), out.MaxRunDeadline, must.Sprint("on the same anchor"))
		must.Eq(t, strconv.FormatUint(out.Index, 10), resp.header.Get(httpserver.HeaderIndex))

		// Every read shows it.
		var read api.Allocation
		get(t, a, "/v1/allocation/"+alloc.ID, &read)
		must.Eq(t, budget, read.MaxRunDuration)
		must.Eq(t, out.MaxRunDeadline, read.MaxRunDeadline)
		must.Eq(t, "allocation", read.MaxRunScope)
		var stubs []*api.AllocationListStub
		get(t, a, "/v1/allocations?prefix=aaaa", &stubs)
		must.Eq(t, out.MaxRunDeadline, stubs[0].MaxRunDeadline)
	}

	cases := []struct {
		name string
		path string
		body any
		code int
	}{
		{name: "no body", path: path, code: http.StatusBadRequest},
		{name: "not JSON", path: path, body: "2h", code: http.StatusBadRequest},
		{name: "a duration string", path: path, body: map[string]any{"MaxRunDuration": "2h"}, code: http.StatusBadRequest},
		{name: "zero", path: path, body: map[string]any{"MaxRunDuration": 0}, code: http.StatusBadRequest},
		{name: "negative", path: path, body: map[string]any{"MaxRunDuration": -1}, code: http.StatusBadRequest},
		{name: "unknown allocation", path: "/v1/allocation/cccc3333-0000-4000-8000-000000000003/max-run-duration",
			body: map[string]any{"MaxRunDuration": int64(time.Hour)}, code: http.StatusNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, a, http.MethodPut, tc.path, tc.body)
			must.Eq(t, tc.code, resp.code, must.Sprint(resp))
		})
	}

	// The Go client drives it.
	client, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)
	got, err := client.Allocations().SetMaxRunDuration(alloc.ID, time.Minute, nil)
	must.NoError(t, err)
	must.Eq(t, time.Minute, got.MaxRunDuration)
	must.Eq(t, alloc.CreateTime+int64(time.Minute), got.MaxRunDeadline)
	must.Positive(t, got.LastIndex)
}
