package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// memoryJob is a batch job of one raw_exec task that sleeps and asks for
// memoryMB; pending, unless empty, is the group's max_pending_duration.
func memoryJob(id string, memoryMB int64, pending string) string {
	limit := ""
	if pending != "" {
		limit = fmt.Sprintf("\n    max_pending_duration = %q", pending)
	}
	return fmt.Sprintf(`job %q {
  type = "batch"
  group "g" {%s
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["1000"] }
      resources { memory = %d }
    }
  }
}`, id, limit, memoryMB)
}

// TestPendingTimeout_FullNode: a job with a 2 s max_pending_duration on a
// node another job fills stays pending, then its placement is given up:
// the job ends dead, `job run -wait` exits 5 saying why, and job status,
// the evaluation and the summary carry the reason.
func TestPendingTimeout_FullNode(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)
	nodes, _, err := a.api.Nodes().List(nil)
	must.NoError(t, err)
	must.Len(t, 1, nodes)
	node, _, err := a.api.Nodes().Info(nodes[0].ID, nil)
	must.NoError(t, err)
	total := node.NodeResources.Memory.MemoryMB
	must.Positive(t, total)
	// Each asks for more than half the node: the first fills it.
	half := total/2 + 1
	a.runJob(memoryJob("hog", half, ""))
	a.waitRunning("hog")

	path := writeFile(t, a.dir, "waiting.hcl", memoryJob("waiting", half, "2s"))
	start := time.Now()
	out, code := a.cli("job run", "-wait", path)
	took := time.Since(start)
	must.Eq(t, 5, code, must.Sprintf("exit code of job run -wait:\n%s", out))
	must.StrContains(t, out, "1 placement given up: exceeded max_pending_duration")
	must.StrContains(t, out, `Job "waiting" exceeded max_pending_duration`)
	must.Greater(t, 2*time.Second, took, must.Sprint("not before the pending timeout"))

	a.waitJobStatus("waiting", "dead", 10*time.Second)
	allocs, err := a.jobAllocs("waiting")
	must.NoError(t, err)
	must.SliceEmpty(t, allocs, must.Sprint("the placement was never made"))

	evals, _, err := a.api.Jobs().Evaluations("waiting", nil)
	must.NoError(t, err)
	var blocked *api.Evaluation
	for _, e := range evals {
		if len(e.PendingExpired) > 0 {
			blocked = e
		}
	}
	must.NotNil(t, blocked, must.Sprintf("an evaluation gave the placement up: %+v", evals))
	must.Eq(t, api.EvalStatusCancelled, blocked.Status)
	must.Eq(t, "exceeded max_pending_duration", blocked.StatusDescription)
	must.Eq(t, map[string]int{"g": 1}, blocked.PendingExpired)
	must.GreaterEq(t, blocked.PendingSince+int64(2*time.Second), blocked.ModifyTime)

	summary, _, err := a.api.Jobs().Summary("waiting", nil)
	must.NoError(t, err)
	must.Eq(t, api.TaskGroupSummary{PendingExpired: 1}, summary.Summary["g"])

	status := a.mustCLI("job status", "waiting")
	must.RegexMatch(t, regexp.MustCompile(`Status\s+= dead`), status)
	must.StrContains(t, status, "Pending Timeout")
	must.True(t, strings.Contains(status, "exceeded max_pending_duration"), must.Sprint(status))

	// A dispatched child waits and is given up alike: its own exit code.
	param := strings.Replace(memoryJob("param", half, "2s"), `type = "batch"`, "type = \"batch\"\n  parameterized {}", 1)
	a.runJob(param)
	out, code = a.cli("job dispatch", "-wait", "param")
	must.Eq(t, 5, code, must.Sprintf("exit code of job dispatch -wait:\n%s", out))
	must.StrContains(t, out, "exceeded max_pending_duration")
}
