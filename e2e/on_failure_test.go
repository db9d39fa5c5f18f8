package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// onFailureJob is a batch job of one group "g" whose task runs script
// under /bin/sh, without restarts, with the given on_failure rule and
// reschedule attempts; extra is more of the group's or job's body.
func onFailureJob(id, script, rule string, attempts int, jobExtra, groupExtra string) string {
	return fmt.Sprintf(`job %q {
  type = "batch"
  %s
  group "g" {
    %s
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = %d
      interval  = "1h"
      delay     = "1s"
      unlimited = false
    }
    on_failure {
      rule {
        %s
      }
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", %q]
      }
    }
  }
}`, id, jobExtra, groupExtra, attempts, rule, script)
}

// TestOnFailure_Actions runs one job per on_failure action against a real
// agent, with raw_exec tasks that exit 3 or outlive a short
// max_run_duration.
func TestOnFailure_Actions(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)
	failed := clientStatus(api.AllocClientStatusFailed)

	t.Run("retry", func(t *testing.T) {
		a.runJob(onFailureJob("of-retry", "exit 3", `exit_codes = [3]
        action = "retry"`, 1, "", ""))
		a.waitAllocs("of-retry", 2, "failed", 60*time.Second, failed)
		a.waitJobStatus("of-retry", "dead", 30*time.Second)
	})

	t.Run("ignore", func(t *testing.T) {
		a.runJob(onFailureJob("of-ignore", "exit 3", `exit_codes = [3]
        action = "ignore"`, 3, "", ""))
		a.waitAllocs("of-ignore", 1, "failed", 60*time.Second, failed)
		a.waitJobStatus("of-ignore", "dead", 30*time.Second)
		mustStayAt(t, a, "of-ignore", 1)
	})

	t.Run("fail_job", func(t *testing.T) {
		job := a.parseJob(onFailureJob("of-failjob", "exit 3", `exit_codes = [3]
        action = "fail_job"`, 3, "", ""))
		other := a.parseJob(onFailureJob("x", "sleep 1000", `exit_codes = [3]
        action = "retry"`, 0, "", "")).TaskGroups[0]
		other.Name = new("long")
		other.OnFailure = nil
		job.TaskGroups = append(job.TaskGroups, other)
		a.register(job)
		allocs := a.waitAllocs("of-failjob", 2, "terminal", 60*time.Second, func(alloc *api.Allocation) error {
			if alloc.ClientStatus == api.AllocClientStatusRunning || alloc.ClientStatus == api.AllocClientStatusPending {
				return fmt.Errorf("%w: %s", errNotYet, alloc.ClientStatus)
			}
			return nil
		})
		for _, alloc := range allocs {
			if alloc.TaskGroup == "long" {
				must.StrContains(t, alloc.DesiredDescription, `job failed by on_failure rule 1 (fail_job) of group "g"`)
				must.StrContains(t, alloc.DesiredDescription, "exit code 3")
			}
		}
		a.waitJobStatus("of-failjob", "dead", 30*time.Second)
		mustStayAt(t, a, "of-failjob", 2)
	})

	t.Run("complete", func(t *testing.T) {
		job := a.parseJob(onFailureJob("of-complete", "exit 3", `exit_codes = [3]
        action = "complete"`, 3, "", ""))
		other := a.parseJob(onFailureJob("x", "sleep 3", `exit_codes = [3]
        action = "retry"`, 0, "", "")).TaskGroups[0]
		other.Name = new("short")
		other.OnFailure = nil
		job.TaskGroups = append(job.TaskGroups, other)
		a.register(job)
		allocs := a.waitAllocs("of-complete", 2, "finished", 60*time.Second, func(alloc *api.Allocation) error {
			want := api.AllocClientStatusComplete
			if alloc.TaskGroup == "g" {
				want = api.AllocClientStatusFailed
			}
			return clientStatus(want)(alloc)
		})
		for _, alloc := range allocs {
			must.Eq(t, "run", alloc.DesiredStatus, must.Sprint("the other group ran to its end"))
		}
		a.waitJobStatus("of-complete", "dead", 30*time.Second)
		mustStayAt(t, a, "of-complete", 2)
	})

	t.Run("requeue", func(t *testing.T) {
		a.runJob(onFailureJob("of-requeue", "sleep 1000", `reasons = ["timeout"]
        action = "requeue"`, 0, `max_run_duration = "6s"`, `max_run_duration = "2s"`))
		job, _, err := a.api.Jobs().Info("of-requeue", nil)
		must.NoError(t, err)
		jobDeadline := unixTime(deref(job.SubmitTime)).Add(6 * time.Second)
		a.waitJobStatus("of-requeue", "dead", 60*time.Second)
		stubs, err := a.jobAllocs("of-requeue")
		must.NoError(t, err)
		must.True(t, len(stubs) >= 2, must.Sprintf("requeued: %d allocations", len(stubs)))
		var allocs []*api.Allocation
		for _, s := range stubs {
			alloc, _, err := a.api.Allocations().Info(s.ID, nil)
			must.NoError(t, err)
			must.Eq(t, api.AllocClientStatusComplete, alloc.ClientStatus)
			must.True(t, alloc.MaxRunExceeded)
			must.True(t, alloc.MaxRunDeadline <= jobDeadline.UnixNano(), must.Sprint("never past the job's budget"))
			allocs = append(allocs, alloc)
		}
		slices.SortFunc(allocs, func(x, y *api.Allocation) int { return int(x.CreateTime - y.CreateTime) })
		for i := 1; i < len(allocs); i++ {
			must.Eq(t, allocs[i-1].ID, allocs[i].PreviousAllocation)
			must.StrContains(t, allocs[i-1].DesiredDescription, "requeued")
		}
		last := allocs[len(allocs)-1]
		must.Eq(t, "job", last.MaxRunScope, must.Sprint("the last one had only what was left of the job's budget"))
		t.Logf("%d allocations within the job's 6s", len(allocs))
	})
}

// mustStayAt checks that the job keeps n allocations for a while: nothing
// rescheduled late.
func mustStayAt(t *testing.T, a *testAgent, jobID string, n int) {
	t.Helper()
	time.Sleep(3 * time.Second) // longer than the reschedule delay of 1s
	stubs, err := a.jobAllocs(jobID)
	must.NoError(t, err)
	ids := make([]string, len(stubs))
	for i, s := range stubs {
		ids[i] = s.ID
	}
	must.SliceLen(t, n, stubs, must.Sprintf("allocations %s", strings.Join(ids, ",")))
}
