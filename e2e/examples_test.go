package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestExamples runs the jobs in examples/ on a dev agent with
// `drover job run`, as the README tells a newcomer to, and checks that
// each does what its comment promises. examples/sysbatch.hcl needs more
// than one node: TestCluster runs it.
func TestExamples(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)

	t.Run("maxrun", func(t *testing.T) {
		t.Parallel()
		a.with(t).maxrunExample()
	})
	t.Run("maxrun-poststop", func(t *testing.T) {
		t.Parallel()
		a.with(t).poststopExample()
	})
	t.Run("slow-artifact", func(t *testing.T) {
		t.Parallel()
		a.with(t).slowArtifactExample()
	})
	t.Run("periodic-maxrun", func(t *testing.T) {
		t.Parallel()
		a.with(t).periodicExample()
	})
}

// maxrunExample checks that examples/maxrun.hcl is the job of DESIGN.md,
// which TestMaxRun_DesignExample runs through the CLI and checks in full
// (killed at 10 s, maxrun2 exit 0, complete with the reason, job dead):
// the two files parse to the same job, so the 10-second run is not
// repeated here.
func (a *testAgent) maxrunExample() {
	t := a.t
	example, err := os.ReadFile(examplePath(t, "maxrun.hcl"))
	must.NoError(t, err)
	got, err := json.Marshal(a.parseJob(string(example)))
	must.NoError(t, err)
	want, err := json.Marshal(a.parseJob(designExample))
	must.NoError(t, err)
	must.Eq(t, string(want), string(got),
		must.Sprint("examples/maxrun.hcl must be the job TestMaxRun_DesignExample runs"))
}

// poststopExample runs examples/maxrun-poststop.hcl: the main task is
// killed at the 10 s deadline and the poststop task never starts.
func (a *testAgent) poststopExample() {
	t := a.t
	a.mustCLI("job run", "-detach", examplePath(t, "maxrun-poststop.hcl"))
	done := a.mustTimeOut("maxrun-poststop", "main", 10*time.Second)
	post := task(t, done, "cleanup")
	must.Eq(t, api.TaskStateDead, post.State)
	must.True(t, post.StartedAt.IsZero(), must.Sprintf("poststop task started at %s", post.StartedAt))
	must.Nil(t, event(post, "Started"), must.Sprintf("poststop events: %v", events(post)))
}

// slowArtifactExample runs examples/slow-artifact.hcl against a server
// that sends the archive a few bytes at a time and never finishes: the
// 10 s deadline, counted from the allocation's creation, cuts the
// download off, the task never starts, and the allocation ends complete
// with the reason.
func (a *testAgent) slowArtifactExample() {
	t := a.t
	srv := startTrickleServer(t)
	a.mustCLI("job run", "-detach", "-var", "artifact_url="+srv.URL+"/big.tar.gz",
		examplePath(t, "slow-artifact.hcl"))

	done := a.waitAllocs("slow-artifact", 1, "terminal", 45*time.Second, terminal)[0]
	mustEndByDeadline(t, done)
	deadline := deadlineOf(t, done, 10*time.Second)
	ts := task(t, done, "unpack")
	must.Eq(t, api.TaskStateDead, ts.State)
	must.True(t, ts.StartedAt.IsZero(), must.Sprintf("task started at %s", ts.StartedAt))
	must.Nil(t, event(ts, "Started"), must.Sprintf("events: %v", events(ts)))

	// The download was under way until the deadline, then abandoned.
	first, closed := srv.span()
	must.False(t, first.IsZero(), must.Sprint("the artifact was never requested"))
	must.True(t, first.Before(deadline), must.Sprintf("first request at %s, after the deadline %s", first, deadline))
	a.waitFor("the download to be abandoned", 10*time.Second, func() error {
		if _, closed = srv.span(); closed.IsZero() {
			return fmt.Errorf("%w: the download still runs", errNotYet)
		}
		return nil
	})
	late := closed.Sub(deadline)
	must.True(t, late >= 0 && late <= 2*killWithin, must.Sprintf(
		"download abandoned %s after the deadline; want within [0, %s]", late, 2*killWithin))
	a.waitJobStatus("slow-artifact", "dead", 10*time.Second)
}

// trickleServer serves every GET as an endless body of a few bytes at a
// time, and records when the first request came and when the last
// client hung up.
type trickleServer struct {
	*httptest.Server
	mu     sync.Mutex
	first  time.Time
	closed time.Time
}

// trickleGap is the pause between two chunks of the body.
const trickleGap = 100 * time.Millisecond

func startTrickleServer(t *testing.T) *trickleServer {
	ts := &trickleServer{}
	stop := make(chan struct{})
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		if ts.first.IsZero() {
			ts.first = time.Now()
		}
		ts.mu.Unlock()
		defer func() {
			ts.mu.Lock()
			ts.closed = time.Now()
			ts.mu.Unlock()
		}()
		w.Header().Set("Content-Type", "application/gzip")
		w.Header().Set("Content-Length", "104857600")
		flusher, _ := w.(http.Flusher)
		chunk := make([]byte, 64)
		tick := time.NewTicker(trickleGap)
		defer tick.Stop()
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}))
	// Cleanups run last-in first-out: the handlers return, then the
	// server closes (Close waits for them).
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(stop) })
	return ts
}

// span is when the first request came, and when the last one ended
// (zero while none has).
func (ts *trickleServer) span() (first, closed time.Time) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.first, ts.closed
}

// periodicExample registers examples/periodic-maxrun.hcl and forces a
// launch: the child job runs with its own deadline, CreateTime + 45 s
// (the example's budget; the example has no variable to shorten it, so
// the kill itself is left to the max_run_duration tests), and the
// parent's status lists it.
func (a *testAgent) periodicExample() {
	t := a.t
	const parent = "periodic-maxrun"
	out := a.mustCLI("job run", "-detach", examplePath(t, "periodic-maxrun.hcl"))
	must.StrContains(t, out, "next launch")
	parentJob, _, err := a.api.Jobs().Info(parent, nil)
	must.NoError(t, err)
	must.True(t, parentJob.IsPeriodic())

	out = a.mustCLI("job periodic force", "-detach", parent)
	evalID := regexp.MustCompile(`Evaluation ID: (\S+)`).FindStringSubmatch(out)
	must.SliceLen(t, 2, evalID, must.Sprintf("no evaluation ID in:\n%s", out))
	eval, _, err := a.api.Evaluations().Info(evalID[1], nil)
	must.NoError(t, err)
	child := eval.JobID
	must.RegexMatch(t, regexp.MustCompile(`^`+regexp.QuoteMeta(parent)+`/periodic-\d+$`), child)

	childJob, _, err := a.api.Jobs().Info(child, nil)
	must.NoError(t, err)
	must.Eq(t, parent, deref(childJob.ParentID))
	must.False(t, childJob.IsPeriodic(), must.Sprint("a launched child is not periodic itself"))

	alloc := a.waitRunning(child)
	deadlineOf(t, alloc, 45*time.Second)
	a.waitFor("the child's output", 10*time.Second, func() error {
		logs, _ := a.cli("alloc logs", alloc.ID, "work")
		if !strings.Contains(logs, "run of "+child+" started") {
			return fmt.Errorf("%w: logs %q", errNotYet, logs)
		}
		return nil
	})

	status := a.mustCLI("job status", parent)
	must.StrContains(t, status, "Previously Launched Jobs")
	must.RegexMatch(t, regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(child)+`\s+running\s*$`), status)
}
