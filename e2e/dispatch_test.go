package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// dispatchJob is a parameterized job whose task prints the payload it
// finds in its local/ directory, its meta as environment variables and
// as interpolated into its arguments, then sleeps for meta "sleep"
// seconds.
const dispatchJob = `job "dispatch-e2e" {
  type = "batch"
  meta { sleep = "0" }
  parameterized {
    payload              = "required"
    meta_required        = ["who"]
    meta_optional        = ["sleep"]
    max_run_duration_max = "1m"
  }
  group "g" {
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "read" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "cat \"$NOMAD_TASK_DIR/in/payload.txt\"; echo; echo \"env=$NOMAD_META_who upper=$NOMAD_META_WHO arg=$0\"; exec sleep \"$NOMAD_META_sleep\"", "${NOMAD_META_who}"]
      }
      dispatch_payload { file = "in/payload.txt" }
    }
  }
}
`

// TestDispatch_EndToEnd registers a parameterized job, dispatches it
// through the official Go client with a payload, meta and an idempotency
// token, and reads what the raw_exec task saw; then dispatches with a
// deadline of its own, through Drover's client and through the CLI with
// -wait.
func TestDispatch_EndToEnd(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)
	path := writeFile(t, a.dir, "dispatch.hcl", dispatchJob)
	out := a.mustCLI("job run", path)
	must.StrContains(t, out, "Job registration successful")
	a.waitJobStatus("dispatch-e2e", "running", 30*time.Second)

	nomad, err := nomadapi.NewClient(&nomadapi.Config{Address: a.Addr})
	must.NoError(t, err)
	opts := &nomadapi.DispatchOptions{JobID: "dispatch-e2e", Payload: []byte(`{"input": 42}`), Meta: map[string]string{"who": "alice"}}
	token := &nomadapi.WriteOptions{IdempotencyToken: "e2e-once"}
	d, _, err := nomad.Jobs().DispatchOpts(opts, token)
	must.NoError(t, err)
	must.RegexMatch(t, regexp.MustCompile(`^dispatch-e2e/dispatch-\d+-[0-9a-f]{8}$`), d.DispatchedJobID)
	again, _, err := nomad.Jobs().DispatchOpts(opts, token)
	must.NoError(t, err)
	must.Eq(t, d.DispatchedJobID, again.DispatchedJobID)

	done := a.waitAllocs(d.DispatchedJobID, 1, "complete", 60*time.Second, clientStatus(api.AllocClientStatusComplete))[0]
	logs := a.mustCLI("alloc logs", done.ID, "read")
	must.Eq(t, "{\"input\": 42}\nenv=alice upper=alice arg=alice\n", logs)
	a.waitJobStatus(d.DispatchedJobID, "dead", 30*time.Second)
	status := a.mustCLI("job status", "dispatch-e2e")
	must.StrContains(t, status, "Dispatched Jobs")
	must.RegexMatch(t, regexp.MustCompile(regexp.QuoteMeta(d.DispatchedJobID)+`\s+dead`), status)
	jobs, _, err := nomad.Jobs().PrefixList("dispatch-e2e/dispatch")
	must.NoError(t, err)
	must.Len(t, 1, jobs, must.Sprint("one child: the token held"))

	// A dispatch with its own deadline (Drover's): the group carries it,
	// the client enforces it, alloc status names it.
	budget := 3 * time.Second
	own, _, err := a.api.Jobs().Dispatch(&api.JobDispatchRequest{
		JobID: "dispatch-e2e", Payload: []byte("x"), Meta: map[string]string{"who": "bob", "sleep": "1000"}, MaxRunDuration: &budget,
	}, nil)
	must.NoError(t, err)
	running := a.waitRunning(own.DispatchedJobID)
	deadline := deadlineOf(t, running, budget)
	must.RegexMatch(t, regexp.MustCompile(`Max Run Duration\s+= 3s \(set by dispatch\)`), a.mustCLI("alloc status", running.ID))
	timedOut := a.waitAlloc(running.ID, "complete", 40*time.Second, clientStatus(api.AllocClientStatusComplete))
	mustTimedOutAt(t, timedOut, "read", deadline, killWithin)

	// Past the parent's max_run_duration_max: refused, saying why.
	_, _, err = a.api.Jobs().Dispatch(&api.JobDispatchRequest{
		JobID: "dispatch-e2e", Payload: []byte("x"), Meta: map[string]string{"who": "eve"}, MaxRunDuration: new(2 * time.Minute),
	}, nil)
	must.ErrorContains(t, err, "max_run_duration_max = 1m0s")

	// The CLI with -wait: exit 0 when the job completes, 3 when its
	// deadline stops it, as job run -wait.
	payload := writeFile(t, a.dir, "payload.json", `{"cli": true}`)
	out, code := a.cli("job dispatch", "-wait", "-meta", "who=carol", "dispatch-e2e", payload)
	must.Eq(t, 0, code, must.Sprint(out))
	must.RegexMatch(t, regexp.MustCompile(`Job "dispatch-e2e/dispatch-\S+" finished: 1 allocation, 1 complete`), out)
	out, code = a.cli("job dispatch", "-wait", "-max-run-duration", "2s", "-meta", "who=dave", "-meta", "sleep=1000", "dispatch-e2e", payload)
	must.Eq(t, 3, code, must.Sprint(out))
	must.StrContains(t, out, "timed out: allocation exceeded max_run_duration")

	// A stopped parent is refused.
	a.mustCLI("job stop", "dispatch-e2e")
	out, code = a.cli("job dispatch", "-meta", "who=x", "dispatch-e2e", payload)
	must.Eq(t, 1, code)
	must.StrContains(t, out, "stopped")

	// Every dispatch's payload is in its job, as the API returns it.
	child, _, err := nomad.Jobs().Info(d.DispatchedJobID, nil)
	must.NoError(t, err)
	raw, err := json.Marshal(child.Payload)
	must.NoError(t, err)
	must.Eq(t, `"eyJpbnB1dCI6IDQyfQ=="`, strings.TrimSpace(string(raw)))
}
