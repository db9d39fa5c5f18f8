package command

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// parameterizedSpec writes a parameterized batch job whose allocations
// are never rescheduled, so that a test decides how each ends.
func parameterizedSpec(t *testing.T, id, block string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), id+".hcl")
	spec := `job "` + id + `" {
  type = "batch"
  parameterized {
    ` + block + `
  }
  group "g" {
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/cat" args = ["local/in.txt"] }
      dispatch_payload { file = "in.txt" }
    }
  }
}
`
	must.NoError(t, os.WriteFile(path, []byte(spec), 0o644))
	return path
}

var dispatchedLine = regexp.MustCompile(`Dispatched Job ID = (\S+)`)

// dispatchedID is the child's ID a dispatch printed.
func dispatchedID(t *testing.T, out string) string {
	t.Helper()
	m := dispatchedLine.FindStringSubmatch(out)
	must.Len(t, 2, m, must.Sprintf("no dispatched job ID in %q", out))
	return m[1]
}

func storedJob(t *testing.T, a *agent.Agent, id string) *structs.Job {
	t.Helper()
	job, err := a.Server().State().JobByID(nil, structs.DefaultNamespace, id)
	must.NoError(t, err)
	must.NotNil(t, job)
	return job
}

func TestJobDispatch_detachPayloadMetaAndToken(t *testing.T) {
	a, addr := testAgent(t)
	code, out, errOut := runCLIWithin(t, "", "job", "run", "-address", addr, parameterizedSpec(t, "p", `meta_required = ["who"]
    max_run_duration_max = "1m"`))
	must.Eq(t, 0, code, must.Sprint(out, errOut))
	must.StrContains(t, out, "Job registration successful")

	code, out, errOut = runCLI(t, "from stdin", "job", "dispatch", "-address", addr, "-detach",
		"-meta", "who=me", "-idempotency-token", "t1", "-max-run-duration", "30s", "p", "-")
	must.Eq(t, 0, code, must.Sprint(out, errOut))
	must.RegexMatch(t, regexp.MustCompile(`^Dispatched Job ID = p/dispatch-\d+-[0-9a-f]{8}\nEvaluation ID     = [0-9a-f]{8}\n$`), out)
	child := storedJob(t, a, dispatchedID(t, out))
	must.Eq(t, "from stdin", string(child.Payload))
	must.Eq(t, "me", child.Meta["who"])
	must.Eq(t, 30*time.Second, *child.TaskGroups[0].MaxRunDuration)

	// The same token: the same job, nothing new.
	code, again, errOut := runCLI(t, "other", "job", "dispatch", "-address", addr, "-detach", "-meta", "who=me", "-idempotency-token", "t1", "p", "-")
	must.Eq(t, 0, code, must.Sprint(again, errOut))
	must.Eq(t, "Dispatched Job ID = "+child.ID+"\n", again)

	// A payload file.
	file := filepath.Join(t.TempDir(), "payload")
	must.NoError(t, os.WriteFile(file, []byte("from a file"), 0o600))
	code, out, errOut = runCLI(t, "", "job", "dispatch", "-address", addr, "-detach", "-meta", "who=you", "p", file)
	must.Eq(t, 0, code, must.Sprint(out, errOut))
	must.Eq(t, "from a file", string(storedJob(t, a, dispatchedID(t, out)).Payload))

	// job status lists the dispatched jobs under the parent.
	code, out, errOut = runCLI(t, "", "job", "status", "-address", addr, "p")
	must.Eq(t, 0, code, must.Sprint(out, errOut))
	must.RegexMatch(t, regexp.MustCompile(`Parameterized\s+= true`), out)
	must.StrContains(t, out, "\nDispatched Jobs\nID")
	must.StrContains(t, out, child.ID)
	must.StrContains(t, out, "Children Job Summary")

	// The job list marks the parameterized job, as Nomad's does.
	code, out, errOut = runCLI(t, "", "job", "status", "-address", addr)
	must.Eq(t, 0, code, must.Sprint(out, errOut))
	must.RegexMatch(t, regexp.MustCompile(`(?m)^p\s+batch/parameterized\s`), out)
	must.RegexMatch(t, regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(child.ID)+`\s+batch\s`), out)
}

func TestJobDispatch_refusals(t *testing.T) {
	_, addr := testAgent(t)
	code, out, errOut := runCLIWithin(t, "", "job", "run", "-address", addr, parameterizedSpec(t, "p", `meta_required = ["who"]
    max_run_duration_max = "1m"`))
	must.Eq(t, 0, code, must.Sprint(out, errOut))

	cases := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"no job", "", nil, "This command takes one or two arguments"},
		{"bad meta", "", []string{"-meta", "novalue", "p"}, `-meta must be <key>=<value>, not "novalue"`},
		{"payload too large", strings.Repeat("x", 16*1024+1), []string{"-meta", "who=me", "p", "-"}, "payload from - is more than the limit of 16384 bytes (16 KiB)"},
		{"missing file", "", []string{"p", "/nonexistent/payload"}, "read payload: open /nonexistent/payload"},
		{"wait and detach", "", []string{"-wait", "-detach", "p"}, "-wait and -detach exclude each other"},
		{"wait-timeout alone", "", []string{"-wait-timeout", "1s", "p"}, "-wait-timeout needs -wait"},
		{"server: meta", "", []string{"p"}, `missing required key "who"`},
		{"server: max run", "", []string{"-meta", "who=me", "-max-run-duration", "2m", "p"}, "max_run_duration_max = 1m0s"},
		{"server: not parameterized", "", []string{"nope"}, "404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.stdin, append([]string{"job", "dispatch", "-address", addr}, c.args...)...)
			must.Eq(t, exitError, code, must.Sprint(out, errOut))
			must.StrContains(t, errOut, c.want)
		})
	}
}

// -wait follows the dispatched job to its end with job run -wait's exit
// codes: 3 when max_run_duration stopped an allocation, 0 when all
// completed.
func TestJobDispatch_wait(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	code, out, errOut := runCLIWithin(t, "", "job", "run", "-address", addr, parameterizedSpec(t, "p", ""))
	must.Eq(t, 0, code, must.Sprint(out, errOut))

	start := func() <-chan cliResult {
		done := make(chan cliResult, 1)
		go func() {
			var r cliResult
			r.code, r.out, r.errOut = runCLI(t, "", "job", "dispatch", "-address", addr, "-wait", "-max-run-duration", "30s", "p")
			done <- r
		}()
		return done
	}
	childOf := func(n int) *structs.Job {
		var kids []*structs.Job
		waitforJobs(t, a, "p", n, &kids)
		latest := kids[0]
		for _, k := range kids {
			if k.CreateIndex > latest.CreateIndex {
				latest = k
			}
		}
		return latest
	}

	done := start()
	child := childOf(1)
	allocs := placedAllocs(t, a, child.ID, 1)
	endAlloc(t, a, allocs[0], structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, deadTask(false, 130))
	r := result(t, done)
	must.Eq(t, exitDeadline, r.code, must.Sprint(r.out, r.errOut))
	must.StrContains(t, r.out, "Dispatched Job ID = "+child.ID+"\n")
	must.StrContains(t, r.out, `Job "`+child.ID+`" finished: 1 allocation, 1 timed out`)

	done = start()
	child = childOf(2)
	allocs = placedAllocs(t, a, child.ID, 1)
	endAlloc(t, a, allocs[0], structs.AllocClientStatusComplete, "All tasks have completed", deadTask(false, 0))
	r = result(t, done)
	must.Eq(t, exitOK, r.code, must.Sprint(r.out, r.errOut))
}

// waitforJobs waits until the parent has n children and sets kids.
func waitforJobs(t *testing.T, a *agent.Agent, parent string, n int, kids *[]*structs.Job) {
	t.Helper()
	waitfor.True(t, "the dispatched jobs", func() bool {
		var err error
		*kids, err = a.Server().State().JobChildren(nil, structs.DefaultNamespace, parent)
		must.NoError(t, err)
		return len(*kids) == n
	})
}
