package command

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// evalScript is an agent that serves scripted evaluations: the n-th state
// of an evaluation (from 0) is served at index 10*(n+1), and only to a
// blocking query that waits on the index of the state before it, so a
// monitor that does not block, or loses its index, fails the test.
type evalScript struct {
	t      *testing.T
	states map[string][]api.Evaluation
	// allocs are the allocations an evaluation shows once it reached the
	// state with that index.
	allocs map[string]map[int][]*api.AllocationListStub
	// blockAt makes the query for this index of an evaluation wait until
	// the client gives up, closing waiting when it starts.
	blockAt map[string]uint64
	waiting chan struct{}

	mu       sync.Mutex
	served   map[string]int // last state served per evaluation
	requests int
}

// maxScriptRequests bounds the queries one script answers, so that a
// monitor that spins fails its test instead of hanging it.
const maxScriptRequests = 100

// bind readies the script to serve the test t.
func (s *evalScript) bind(t *testing.T) *evalScript {
	s.t = t
	s.served = map[string]int{}
	return s
}

func (s *evalScript) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/evaluation/")
	if !ok || r.Method != http.MethodGet {
		s.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, "unexpected request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests++
	tooMany := s.requests > maxScriptRequests
	s.mu.Unlock()
	if tooMany {
		s.t.Errorf("more than %d queries: the monitor spins", maxScriptRequests)
		http.Error(w, "too many queries", http.StatusInternalServerError)
		return
	}
	id, sub, _ := strings.Cut(rest, "/")
	states, known := s.states[id]
	if !known {
		http.Error(w, "eval not found", http.StatusNotFound)
		return
	}
	if sub == "allocations" {
		s.mu.Lock()
		n := s.served[id]
		s.mu.Unlock()
		writeJSON(w, 10*(n+1), s.allocsAt(id, n))
		return
	}

	index, _ := strconv.ParseUint(r.URL.Query().Get("index"), 10, 64)
	if index > 0 && r.URL.Query().Get("wait") == "" {
		s.t.Errorf("blocking query without a wait time: %s", r.URL)
	}
	if at, ok := s.blockAt[id]; ok && at == index {
		close(s.waiting)
		<-r.Context().Done()
		return
	}
	n := int(index / 10)
	if index%10 != 0 || n >= len(states) {
		s.t.Errorf("query for eval %s at index %d is beyond the script", id, index)
		http.Error(w, "beyond the script", http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	s.served[id] = n
	s.mu.Unlock()
	writeJSON(w, 10*(n+1), states[n])
}

// allocsAt returns the allocations of the latest scripted state up to n.
func (s *evalScript) allocsAt(id string, n int) []*api.AllocationListStub {
	for ; n >= 0; n-- {
		if a, ok := s.allocs[id][n]; ok {
			return a
		}
	}
	return []*api.AllocationListStub{}
}

func writeJSON(w http.ResponseWriter, index int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Nomad-Index", strconv.Itoa(index))
	_ = json.NewEncoder(w).Encode(v)
}

// monitorClock is the monitor's fixed clock in these tests, and stamp how
// it prints it (in local time).
var (
	monitorClock = time.Date(2026, 11, 29, 23, 40, 1, 0, time.UTC)
	stamp        = formatTime(monitorClock)
)

// stamped puts the monitor's printed clock in place of every "@".
func stamped(s string) string { return strings.ReplaceAll(s, "@", stamp) }

// runMonitor monitors evalID against the script and returns the exit code
// and what the monitor printed, with its clock fixed at monitorClock.
func runMonitor(t *testing.T, script *evalScript, ctx context.Context, evalID string) (int, string, string) {
	t.Helper()
	srv := httptest.NewServer(script.bind(t))
	t.Cleanup(srv.Close)
	client, err := api.NewClient(&api.Config{Address: srv.URL})
	must.NoError(t, err)

	ui := cli.NewMockUi()
	m := newEvalMonitor(ui, client, false)
	m.now = func() time.Time { return monitorClock }
	code := m.monitor(ctx, evalID)
	return code, ui.OutputWriter.String(), ui.ErrorWriter.String()
}

const (
	evalID1 = "1a2b3c4d-0000-4000-8000-000000000001"
	evalID2 = "2b3c4d5e-0000-4000-8000-000000000002"
	allocID = "5e6f7a8b-0000-4000-8000-000000000003"
	nodeID  = "9c0d1e2f-0000-4000-8000-000000000004"
)

func scriptedEval(id, status string) api.Evaluation {
	return api.Evaluation{ID: id, JobID: "maxrun", Namespace: "default", Type: "batch",
		TriggeredBy: "job-register", Status: status, CreateIndex: 10}
}

func TestMonitor_PendingToCompleteWithAllocation(t *testing.T) {
	script := &evalScript{
		states: map[string][]api.Evaluation{evalID1: {
			scriptedEval(evalID1, "pending"),
			scriptedEval(evalID1, "pending"), // a blocking query that timed out
			scriptedEval(evalID1, "complete"),
		}},
		allocs: map[string]map[int][]*api.AllocationListStub{evalID1: {
			2: {{ID: allocID, NodeID: nodeID, TaskGroup: "maxrun", CreateIndex: 25}},
		}},
	}
	code, out, errOut := runMonitor(t, script, context.Background(), evalID1)
	must.Eq(t, exitOK, code, must.Sprint(errOut))
	want := stamped(`==> @: Monitoring evaluation "1a2b3c4d"
    @: Evaluation triggered by job "maxrun"
    @: Allocation "5e6f7a8b" created: node "9c0d1e2f", group "maxrun"
    @: Evaluation status changed: "pending" -> "complete"
==> @: Evaluation "1a2b3c4d" finished with status "complete"
`)
	must.Eq(t, want, out)
}

func TestMonitor_PlacementFailureExitsTwoWithReasons(t *testing.T) {
	failed := scriptedEval(evalID1, "complete")
	failed.BlockedEval = evalID2
	failed.FailedTGAllocs = map[string]*api.AllocationMetric{
		"maxrun": {
			NodesEvaluated:     2,
			ConstraintFiltered: map[string]int{"missing drivers": 1},
			NodesExhausted:     1,
			DimensionExhausted: map[string]int{"memory": 1},
		},
	}
	script := &evalScript{states: map[string][]api.Evaluation{
		evalID1: {scriptedEval(evalID1, "pending"), failed},
	}}
	code, out, _ := runMonitor(t, script, context.Background(), evalID1)
	must.Eq(t, exitPlacementFailure, code)
	must.StrContains(t, out, stamped(`==> @: Evaluation "1a2b3c4d" finished with status "complete" but failed to place all allocations:
    @: Task Group "maxrun" (failed to place 1 allocation):
      * Constraint "missing drivers": 1 node excluded by filter
      * Resources exhausted on 1 node
      * Dimension "memory" exhausted on 1 node
    @: Evaluation "2b3c4d5e" waiting for additional capacity to place remainder
`))
}

func TestMonitor_FollowsNextEval(t *testing.T) {
	first := scriptedEval(evalID1, "complete")
	first.NextEval = evalID2
	first.Wait = 30 * time.Second
	script := &evalScript{states: map[string][]api.Evaluation{
		evalID1: {first},
		evalID2: {scriptedEval(evalID2, "pending"), scriptedEval(evalID2, "complete")},
	}}
	code, out, errOut := runMonitor(t, script, context.Background(), evalID1)
	must.Eq(t, exitOK, code, must.Sprint(errOut))
	must.StrContains(t, out, `Evaluation "1a2b3c4d" finished with status "complete"`)
	must.StrContains(t, out, stamped(`==> @: Monitoring next evaluation "2b3c4d5e" in 30s`))
	must.StrContains(t, out, `Evaluation "2b3c4d5e" finished with status "complete"`)
}

func TestMonitor_FailedEvalExitsOne(t *testing.T) {
	failed := scriptedEval(evalID1, "failed")
	failed.StatusDescription = "maximum attempts reached (5)"
	script := &evalScript{states: map[string][]api.Evaluation{evalID1: {failed}}}
	code, out, _ := runMonitor(t, script, context.Background(), evalID1)
	must.Eq(t, exitError, code)
	must.StrContains(t, out, `Evaluation status changed: "pending" -> "failed"`)
	must.StrContains(t, out, `Evaluation status description: maximum attempts reached (5)`)
}

func TestMonitor_UnknownEval(t *testing.T) {
	script := &evalScript{states: map[string][]api.Evaluation{}}
	code, _, errOut := runMonitor(t, script, context.Background(), evalID1)
	must.Eq(t, exitError, code)
	must.StrContains(t, errOut, `No evaluation with id "`+evalID1+`" found`)
}

// An evaluation no scheduler picks up keeps the monitor in a blocking
// query; cancelling (Ctrl-C) ends it cleanly.
func TestMonitor_InterruptWhileBlocked(t *testing.T) {
	script := &evalScript{
		states:  map[string][]api.Evaluation{evalID1: {scriptedEval(evalID1, "pending")}},
		blockAt: map[string]uint64{evalID1: 10},
		waiting: make(chan struct{}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-script.waiting
		cancel()
	}()
	code, out, _ := runMonitor(t, script, ctx, evalID1)
	must.Eq(t, exitInterrupted, code)
	must.StrContains(t, out, `Monitoring interrupted: evaluation "1a2b3c4d" goes on without it`)
	must.StrNotContains(t, out, "finished")
}

func TestWorseExit(t *testing.T) {
	must.Eq(t, exitPlacementFailure, worseExit(exitOK, exitPlacementFailure))
	must.Eq(t, exitError, worseExit(exitPlacementFailure, exitError))
	must.Eq(t, exitError, worseExit(exitError, exitOK))
	must.Eq(t, exitInterrupted, worseExit(exitError, exitInterrupted))
}
