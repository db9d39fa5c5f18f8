package e2e

import (
	"regexp"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestRunTimes_StatusAndPlan runs ten allocations that sleep one second
// under an hour's budget: the API and `job status` give their run times,
// and `job plan` of the same job suggests a budget near them.
func TestRunTimes_StatusAndPlan(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)
	spec := writeFile(t, a.dir, "runtimes.hcl", `job "runtimes" {
  type = "batch"
  group "g" {
    count            = 10
    max_run_duration = "1h"
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["1"]
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}`)
	a.mustCLI("job run", "-detach", spec)
	a.waitAllocs("runtimes", 10, "complete", 120*time.Second, clientStatus(api.AllocClientStatusComplete))

	rt, _, err := a.api.Jobs().RunTimes("runtimes", nil)
	must.NoError(t, err)
	must.SliceLen(t, 1, rt.Groups)
	g := rt.Groups[0]
	must.Eq(t, 10, g.Count)
	must.Eq(t, time.Hour, g.Budget)
	must.Eq(t, 0, g.Timeouts)
	// Each slept a second, and started within a loaded machine's while.
	must.True(t, g.P50 >= time.Second && g.P95 >= g.P50 && g.Max >= g.P95 && g.Max < time.Minute,
		must.Sprintf("run times %+v", g))
	t.Logf("p50 %s, p95 %s, max %s", g.P50, g.P95, g.Max)

	status := a.mustCLI("job status", "runtimes")
	must.RegexMatch(t, regexp.MustCompile(`Run times\nVersion\s+Task Group\s+Count\s+P50\s+P95\s+Max\s+Budget\s+Timeouts\n0\s+g\s+10\s+\S+\s+\S+\s+\S+\s+1h\s+0`), status)

	plan, _ := a.cli("job plan", spec)
	must.RegexMatch(t, regexp.MustCompile(`Task group "g": max_run_duration 1h is \d+x the p95 run time \S+ \(10 runs of version 0\); consider \S+`), plan)
}
