package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestJobBudget_RescheduleInheritsTimeLeft runs a job whose own
// max_run_duration (6s) spans its group's (4s) and every reschedule: the
// first allocation fails at its group deadline, its replacement starts
// with only what is left of the job's budget and is killed at the job's
// deadline (scope "job"), and the next placement, once the budget is
// spent, is given up with its own reason rather than started.
func TestJobBudget_RescheduleInheritsTimeLeft(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)
	a.runJob(`job "jobbudget" {
  type             = "batch"
  max_run_duration = "6s"
  group "g" {
    max_run_duration = "4s"
    max_run_outcome  = "failed"
    reschedule {
      attempts  = 2
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
	job, _, err := a.api.Jobs().Info("jobbudget", nil)
	must.NoError(t, err)
	jobDeadline := unixTime(deref(job.SubmitTime)).Add(6 * time.Second)

	allocs := a.waitAllocs("jobbudget", 2, "failed", 60*time.Second, clientStatus(api.AllocClientStatusFailed))
	slices.SortFunc(allocs, func(x, y *api.Allocation) int { return int(x.CreateTime - y.CreateTime) })
	first, second := allocs[0], allocs[1]
	must.Eq(t, first.ID, second.PreviousAllocation)

	must.Eq(t, "group", first.MaxRunScope)
	mustBeKilledByDeadline(t, first, "t")
	mustFinishWithin(t, task(t, first, "t"), deadlineOf(t, first, 4*time.Second), killWithin)

	// The replacement: only the time left, up to the job's deadline.
	must.Eq(t, "job", second.MaxRunScope)
	must.Eq(t, 6*time.Second, second.MaxRunDuration)
	must.Eq(t, jobDeadline.UnixNano(), second.MaxRunDeadline)
	left := jobDeadline.Sub(unixTime(second.CreateTime))
	t.Logf("the replacement started with %s of the job's 6s left", left)
	must.True(t, left > 0 && left < 4*time.Second, must.Sprintf("the replacement had %s left, not a fresh 4s", left))
	must.Eq(t, exceededDescription, second.ClientDescription)
	mustBeKilledByDeadline(t, second, "t")
	mustFinishWithin(t, task(t, second, "t"), jobDeadline, killWithin)
	must.RegexMatch(t, regexp.MustCompile(`Max Run Duration\s+= 6s \(the job's max_run_duration`), a.mustCLI("alloc status", second.ID))

	// The second reschedule comes after the job's budget: given up.
	a.waitJobStatus("jobbudget", "dead", 30*time.Second)
	a.waitFor("the placement given up", 30*time.Second, func() error {
		evals, _, err := a.api.Jobs().Evaluations("jobbudget", nil)
		if err != nil {
			return err
		}
		for _, e := range evals {
			if e.StatusDescription == "job max_run_duration spent" {
				if m := e.FailedTGAllocs["g"]; m == nil || m.GivenUp != "job max_run_duration spent" {
					t.Fatalf("evaluation %s gave up without the group's reason: %+v", e.ID, m)
				}
				if e.BlockedEval != "" {
					t.Fatalf("evaluation %s left blocked evaluation %s for a given-up placement", e.ID, e.BlockedEval)
				}
				return nil
			}
		}
		return fmt.Errorf("%w: no evaluation gave the placement up", errNotYet)
	})
	stubs, err := a.jobAllocs("jobbudget")
	must.NoError(t, err)
	must.SliceLen(t, 2, stubs, must.Sprintf("no third allocation: %s", allocIDs(stubs)))
}

// finishByJob is a batch job with a finish-by deadline at, whose group
// has a 1h budget and, when minRun is not empty, a min_run_duration.
func finishByJob(id string, at time.Time, minRun string) string {
	min := ""
	if minRun != "" {
		min = fmt.Sprintf("min_run_duration = %q", minRun)
	}
	return fmt.Sprintf(`job %q {
  type     = "batch"
  deadline = %q
  group "g" {
    max_run_duration = "1h"
    %s
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`, id, at.UTC().Format(time.RFC3339Nano), min)
}

// TestFinishBy_RefusesAndCuts: an allocation whose budget would end after
// the job's deadline is not started (job plan and job run say "cannot
// finish by"), and with min_run_duration one is started with its budget
// cut to the deadline, and killed at it.
func TestFinishBy_RefusesAndCuts(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)

	at := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	refused := writeFile(t, a.dir, "refused.hcl", finishByJob("finishby-refused", at, ""))
	plan, code := a.cli("job plan", refused)
	must.Eq(t, 0, code, must.Sprint("nothing would be placed: ", plan))
	must.StrContains(t, plan, "cannot finish by "+at.UTC().Format(time.RFC3339Nano))
	out, _ := a.cli("job run", refused)
	must.StrContains(t, out, "cannot finish by")
	a.waitJobStatus("finishby-refused", "dead", 30*time.Second)
	stubs, err := a.jobAllocs("finishby-refused")
	must.NoError(t, err)
	must.SliceEmpty(t, stubs)
	evals, _, err := a.api.Jobs().Evaluations("finishby-refused", nil)
	must.NoError(t, err)
	for _, e := range evals {
		must.NotEq(t, api.EvalStatusBlocked, e.Status, must.Sprint("nothing waits for capacity that cannot help"))
	}

	// With min_run_duration: started, cut to the deadline, killed at it.
	cutAt := time.Now().Add(5 * time.Second)
	a.runJob(finishByJob("finishby-cut", cutAt, "1s"))
	running := a.waitRunning("finishby-cut")
	must.Eq(t, "deadline", running.MaxRunScope)
	must.Eq(t, cutAt.UnixNano(), running.MaxRunDeadline)
	must.Eq(t, cutAt.UnixNano()-running.CreateTime, int64(running.MaxRunDuration))
	must.StrContains(t, a.mustCLI("alloc status", running.ID), "(cut to the job's deadline)")
	done := a.waitAlloc(running.ID, "complete", 40*time.Second, clientStatus(api.AllocClientStatusComplete))
	mustTimedOutAt(t, done, "t", cutAt, killWithin)
	a.waitJobStatus("finishby-cut", "dead", 30*time.Second)
}

// TestNamespaceTimeLimits_Refuse: a namespace's ceiling refuses a job
// past it, naming both values; its default bounds a group without a
// budget; and alloc deadline may not move a budget further than the
// namespace allows.
func TestNamespaceTimeLimits_Refuse(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)
	a.mustCLI("namespace apply", "-max-run-duration-max", "1h", "-max-run-duration-default", "10m",
		"-alloc-deadline-extension-max", "5m", "limited")
	must.StrContains(t, a.mustCLI("namespace status", "limited"), "Ceiling of max_run_duration")

	long := writeFile(t, a.dir, "long.hcl", sleepNamespaceJob("long", `max_run_duration = "2h"`))
	out, code := a.cli("job run", long)
	must.NotEq(t, 0, code, must.Sprint(out))
	must.StrContains(t, out, `max_run_duration 2h0m0s exceeds namespace "limited"'s ceiling of 1h0m0s`)

	a.mustCLI("job run", "-detach", writeFile(t, a.dir, "plain.hcl", sleepNamespaceJob("plain", "")))
	job, _, err := a.api.Jobs().Info("plain", &api.QueryOptions{Namespace: "limited"})
	must.NoError(t, err)
	must.Eq(t, 10*time.Minute, *job.TaskGroups[0].MaxRunDuration, must.Sprint("the namespace's default"))

	var running *api.AllocationListStub
	a.waitFor("the allocation of plain", 60*time.Second, func() error {
		stubs, _, err := a.api.Jobs().Allocations("plain", false, &api.QueryOptions{Namespace: "limited"})
		if err != nil {
			return err
		}
		for _, s := range stubs {
			if s.ClientStatus == api.AllocClientStatusRunning {
				running = s
				return nil
			}
		}
		return fmt.Errorf("%w: no running allocation", errNotYet)
	})
	out, code = a.cli("alloc deadline", "-namespace", "limited", running.ID, "+6m")
	must.NotEq(t, 0, code, must.Sprint(out))
	must.StrContains(t, out, `namespace "limited" allows at most 5m0s`)
	out = a.mustCLI("alloc deadline", "-namespace", "limited", running.ID, "+5m")
	must.StrContains(t, strings.ToLower(out), "deadline")
	a.mustCLI("job stop", "-namespace", "limited", "plain")
}

// sleepNamespaceJob is a batch job in namespace "limited" whose group has
// the given extra line.
func sleepNamespaceJob(id, groupLine string) string {
	return fmt.Sprintf(`job %q {
  namespace = "limited"
  type      = "batch"
  group "g" {
    %s
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`, id, groupLine)
}
