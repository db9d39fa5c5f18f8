package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

func indexOf(t *testing.T, resp response) uint64 {
	t.Helper()
	index, err := strconv.ParseUint(resp.header.Get(httpserver.HeaderIndex), 10, 64)
	must.NoError(t, err, must.Sprintf("X-Nomad-Index %q", resp.header.Get(httpserver.HeaderIndex)))
	return index
}

func TestHTTP_BlockingQueryWakesOnChange(t *testing.T) {
	a := testAgent(t)
	registerJob(t, a, batchJobJSON("first"))
	index := indexOf(t, get(t, a, "/v1/jobs", nil))

	// Watch the list as a client does: block on the last index seen until
	// the list shows the second job. Background work (the scheduler
	// updating the first job's evaluation) may wake it early; each answer
	// is then newer than the last.
	type result struct {
		stubs   []*api.JobListStub
		index   uint64
		elapsed time.Duration
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		last := index
		for {
			resp := do(t, a, http.MethodGet, "/v1/jobs?index="+strconv.FormatUint(last, 10)+"&wait=10s", nil)
			var stubs []*api.JobListStub
			if resp.code != http.StatusOK || json.Unmarshal(resp.body, &stubs) != nil {
				done <- result{}
				return
			}
			next := indexOf(t, resp)
			if len(stubs) == 2 || next <= last {
				done <- result{stubs, next, time.Since(start)}
				return
			}
			last = next
		}
	}()

	// Give the query time to reach the state store and block. Nothing
	// outside the store shows that it has; if it has not yet, the register
	// lands first and the query answers at once, which passes too: the
	// sleep decides how much this test exercises, never whether it passes.
	time.Sleep(300 * time.Millisecond)
	second := registerJob(t, a, batchJobJSON("second"))
	select {
	case r := <-done:
		must.Len(t, 2, r.stubs)
		must.GreaterEq(t, second.JobModifyIndex, r.index)
		must.Less(t, 10*time.Second, r.elapsed, must.Sprint("the register must end the wait"))
	case <-time.After(9 * time.Second):
		t.Fatal("blocking query did not wake on the register")
	}
}

func TestHTTP_BlockingQueryTimesOut(t *testing.T) {
	a := testAgent(t)
	node := upsertNode(t, a, "7a2f7b5e-0000-4000-8000-000000000001", "node-1")
	path := "/v1/node/" + node.ID
	index := indexOf(t, get(t, a, path, nil))

	start := time.Now()
	resp := do(t, a, http.MethodGet, path+"?index="+strconv.FormatUint(index, 10)+"&wait=200ms", nil)
	must.Eq(t, http.StatusOK, resp.code)
	must.Eq(t, index, indexOf(t, resp))
	must.GreaterEq(t, 200*time.Millisecond, time.Since(start))
}

func TestHTTP_PanicIsRecovered(t *testing.T) {
	a := testAgent(t)
	a.http.Handle(httpserver.NewRoute("GET /v1/test/panic", public, func(w http.ResponseWriter, r *http.Request) (any, error) {
		panic("boom")
	}))

	resp := do(t, a, http.MethodGet, "/v1/test/panic", nil)
	must.Eq(t, http.StatusInternalServerError, resp.code)
	must.StrContains(t, resp.String(), "internal error: boom")

	// The agent keeps serving.
	get(t, a, "/v1/jobs", nil)
}

func TestHTTP_Pretty(t *testing.T) {
	a := testAgent(t)
	resp := get(t, a, "/v1/regions?pretty", nil)
	must.Eq(t, "[\n    \"global\"\n]\n", resp.String())
	resp = get(t, a, "/v1/regions", nil)
	must.Eq(t, "[\"global\"]\n", resp.String())
}

func TestHTTP_JobIDWithSlash(t *testing.T) {
	a := testAgent(t)
	// Only a periodic job's children have a "/" in their ID, so the child
	// goes in through the server, as the periodic dispatcher's would.
	spec := batchJobJSON("parent/periodic-1700000000")
	spec["ParentID"] = "parent"
	data, err := json.Marshal(spec)
	must.NoError(t, err)
	var in api.Job
	must.NoError(t, json.Unmarshal(data, &in))
	child := convert.JobFromAPI(&in)
	child.Canonicalize()
	_, err = a.Server().RegisterJob(context.Background(), &nomad.JobRegisterRequest{Job: child})
	must.NoError(t, err)

	var job api.Job
	get(t, a, "/v1/job/parent%2Fperiodic-1700000000", &job)
	must.Eq(t, "parent/periodic-1700000000", *job.ID)
}

// TestUnsupportedRoutes_404SaysNomadsAndWhere: a request to a route of
// Nomad's that Drover lacks gets a 404 that says so and points at the
// differences page; any other unknown path gets the plain 404.
func TestUnsupportedRoutes_404SaysNomadsAndWhere(t *testing.T) {
	a := testAgent(t)
	resp := do(t, a, http.MethodPost, "/v1/deployment/unblock/d1", nil)
	must.Eq(t, http.StatusNotFound, resp.code)
	must.Eq(t, "no such endpoint: POST /v1/deployment/unblock/d1 is a Nomad API route (Deployments) that Drover does not serve yet; see website/content/docs/differences.md\n", string(resp.body))

	resp = do(t, a, http.MethodGet, "/v1/node/pool/team-a/jobs", nil)
	must.Eq(t, http.StatusNotFound, resp.code)
	must.StrContains(t, string(resp.body), "is a Nomad API route (Node pools)")

	resp = do(t, a, http.MethodGet, "/v1/nothing", nil)
	must.Eq(t, http.StatusNotFound, resp.code)
	must.Eq(t, "no such endpoint: GET /v1/nothing\n", string(resp.body))
}
