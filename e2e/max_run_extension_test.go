package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/e2e/agentproc"
)

// selfExtendJob is a batch job whose task, with its workload identity
// (NOMAD_TOKEN), runs `drover alloc deadline` on its own allocation
// within the group's max_run_extension, then past it, then on the
// allocation other, printing each outcome, and sleeps.
func selfExtendJob(binary, addr, other string) string {
	script := strings.Join([]string{
		`run() { echo "== $1"; shift; "$@" 2>&1; echo "exit=$?"; }`,
		fmt.Sprintf(`run within %q alloc deadline -address=%s "$NOMAD_ALLOC_ID" 1h20m`, binary, addr),
		fmt.Sprintf(`run past %q alloc deadline -address=%s "$NOMAD_ALLOC_ID" 1h31m`, binary, addr),
		fmt.Sprintf(`run other %q alloc deadline -address=%s %s 1h10m`, binary, addr, other),
		`echo "== done"`,
		`exec /bin/sleep 1000`,
	}, "\n")
	return fmt.Sprintf(`job "self-extend" {
  type = "batch"
  group "g" {
    max_run_duration  = "1h"
    max_run_extension = "30m"
    task "t" {
      driver = "raw_exec"
      identity { env = true }
      config {
        command = "/bin/sh"
        args    = ["-c", %q]
      }
    }
  }
}`, script)
}

// TestMaxRunExtension_TaskExtendsItself: with ACLs on, a task moves its
// own allocation's deadline with its workload identity within the
// group's max_run_extension; past it, and for another allocation, it is
// refused, the first with both values named.
func TestMaxRunExtension_TaskExtendsItself(t *testing.T) {
	t.Parallel()
	a, mgmt := startACLDevAgent(t)
	a.env = []string{"NOMAD_TOKEN=" + mgmt}
	a.runJob(sleepJob("victim", "batch", "1h", 1000))
	victim := a.waitRunning("victim")

	a.runJob(selfExtendJob(agentproc.Binary(t), a.Addr, victim.ID))
	alloc := a.waitRunning("self-extend")
	var logs string
	a.waitFor("the task's three attempts", 30*time.Second, func() error {
		logs, _ = a.cli("alloc logs", alloc.ID, "t")
		if !strings.Contains(logs, "== done") {
			return fmt.Errorf("not done yet:\n%s", logs)
		}
		return nil
	})
	within, rest, _ := strings.Cut(logs, "== past")
	past, other, _ := strings.Cut(rest, "== other")
	must.StrContains(t, within, "exit=0", must.Sprint(logs))
	must.StrContains(t, within, "1h => 1h20m", must.Sprint(logs))
	must.StrContains(t, past, "exit=1", must.Sprint(logs))
	must.StrContains(t, past, "max_run_duration 1h31m0s is 31m0s beyond the group's max_run_duration 1h0m0s, past its max_run_extension 30m0s", must.Sprint(logs))
	must.StrContains(t, other, "exit=1", must.Sprint(logs))
	must.StrContains(t, strings.ToLower(other), "permission denied", must.Sprint(logs))

	got, _, err := a.api.Allocations().Info(alloc.ID, nil)
	must.NoError(t, err)
	must.Eq(t, 80*time.Minute, got.MaxRunDuration, must.Sprint("the change within the ceiling stands, the refused one does not"))
	v, _, err := a.api.Allocations().Info(victim.ID, nil)
	must.NoError(t, err)
	must.Eq(t, time.Hour, v.MaxRunDuration, must.Sprint("another allocation is untouched"))
}
