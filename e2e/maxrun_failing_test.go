package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// failingJob's task fails at once and waits 30 s to be restarted, so that
// its 2 s budget runs out while it is failing, as a docker task whose
// image cannot be pulled does.
const failingJob = `job "failing" {
  type = "batch"
  group "g" {
    max_run_duration = "2s"
    restart {
      attempts = 1
      delay    = "30s"
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/false" }
    }
  }
}
`

// TestMaxRun_DeadlineWhileFailing: a deadline that passes while a task
// waits to restart after a failure is reported as the failure it is —
// by the allocation's status and description, by job run -wait (exit 1,
// the failure named) and by the UI, which marks the failure rather than
// the kill.
func TestMaxRun_DeadlineWhileFailing(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	out, code := a.cli("job run", "-wait", writeFile(t, a.dir, "failing.hcl", failingJob))
	must.Eq(t, 1, code, must.Sprint(out))
	must.StrContains(t, out, `failed: allocation exceeded max_run_duration while task "t" was failing: Exit Code: 1`)
	must.StrContains(t, out, `finished: 1 allocation, 1 failed`)

	done := a.waitAllocs("failing", 1, "terminal", 10*time.Second, terminal)[0]
	must.Eq(t, api.AllocClientStatusFailed, done.ClientStatus)
	must.True(t, done.MaxRunExceeded, must.Sprint("the deadline did stop it"))
	must.Eq(t, `allocation exceeded max_run_duration while task "t" was failing: Exit Code: 1`, done.ClientDescription)

	b := startBrowser(t, a.Addr)
	b.open("/ui/allocations/"+done.ID, "#tasks")
	must.StrContains(t, b.text("#client-description"), `was failing: Exit Code: 1`)
	b.waitText("the failure marked", "#tasks tr.failure-event", func(s string) bool { return strings.Contains(s, "Terminated") })
	must.Eq(t, 0, eval[int](b, `document.querySelectorAll('#tasks tr.timeout-event').length`))
	b.noProblems()
}
