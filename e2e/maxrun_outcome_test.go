package e2e

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestMaxRun_OutcomeFailedReschedules runs a group whose deadline ends its
// allocation failed, with one reschedule attempt: the first allocation
// fails at its deadline, a second one, new, gets a fresh budget and fails
// at its own deadline, and the job is dead with two failed allocations.
func TestMaxRun_OutcomeFailedReschedules(t *testing.T) {
	t.Parallel()
	const budget = 3 * time.Second
	a := startDevAgent(t)
	a.runJob(`job "outcome" {
  type = "batch"
  group "g" {
    max_run_duration = "3s"
    max_run_outcome  = "failed"
    reschedule {
      attempts  = 1
      interval  = "1h"
      delay     = "1s"
      unlimited = false
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`)
	failedByDeadline := func(alloc *api.Allocation) error {
		if err := clientStatus(api.AllocClientStatusFailed)(alloc); err != nil {
			return err
		}
		if alloc.ClientDescription != exceededDescription {
			t.Fatalf("alloc %s failed with %q, not by its deadline", alloc.ID, alloc.ClientDescription)
		}
		return nil
	}
	allocs := a.waitAllocs("outcome", 2, "failed", 60*time.Second, failedByDeadline)
	a.waitJobStatus("outcome", "dead", 30*time.Second)

	first, second := allocs[0], allocs[1]
	if first.CreateTime > second.CreateTime {
		first, second = second, first
	}
	must.Eq(t, first.ID, second.PreviousAllocation, must.Sprint("the second allocation replaces the first"))
	for _, alloc := range []*api.Allocation{first, second} {
		deadline := deadlineOf(t, alloc, budget)
		must.True(t, alloc.MaxRunExceeded)
		mustBeKilledByDeadline(t, alloc, "t")
		mustFinishWithin(t, task(t, alloc, "t"), deadline, killWithin)
	}
	// A fresh budget: the second deadline is its own CreateTime plus the
	// budget (deadlineOf checked), and it was created once the first had
	// ended (a delay within the scheduler's one-second window, as here,
	// places the replacement at once, as Nomad does).
	must.True(t, unixTime(second.CreateTime).After(task(t, first, "t").FinishedAt),
		must.Sprint("the second allocation was created after the first ended"))

	summary, _, err := a.api.Jobs().Summary("outcome", nil)
	must.NoError(t, err)
	must.Eq(t, 2, summary.Summary["g"].Failed)
	must.Eq(t, 0, summary.Summary["g"].Complete)

	// The CLI marks both as timeouts.
	out := a.mustCLI("job status", "outcome")
	must.StrContains(t, out, "failed (max_run_duration)")
	stubs, err := a.jobAllocs("outcome")
	must.NoError(t, err)
	must.SliceLen(t, 2, stubs, must.Sprintf("no third allocation: %s", allocIDs(stubs)))
}
