package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// updateKillWithin bounds the kill after an in-place update: the new
// version travels from the servers to the client (a blocking query that
// answers at once) before the re-armed timer applies it, a few tens of
// milliseconds more than a plain deadline kill on top of killWithin's
// allowance for a loaded machine; the issue asks for "± 2 s" and "within
// ~1 s", which this stays inside.
const updateKillWithin = 2 * time.Second

// updateJob is a batch job of one raw_exec task running args, with the
// group attribute line given (a max_run_duration, or nothing).
func updateJob(id, groupLine string, args ...string) string {
	quoted := ""
	for i, a := range args {
		if i > 0 {
			quoted += ", "
		}
		quoted += fmt.Sprintf("%q", a)
	}
	return fmt.Sprintf(`job %q {
  type = "batch"
  group "g" {
    %s
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = [%s] }
    }
  }
}`, id, groupLine, quoted)
}

// jobVersion is the job version the allocation runs.
func jobVersion(alloc *api.Allocation) uint64 {
	if alloc.Job == nil {
		return 0
	}
	return deref(alloc.Job.Version)
}

// versionAtLeast is an allocation condition: it runs version v or later.
func versionAtLeast(v uint64) func(*api.Allocation) error {
	return func(alloc *api.Allocation) error {
		if got := jobVersion(alloc); got < v {
			return fmt.Errorf("%w: job version %d", errNotYet, got)
		}
		return nil
	}
}

// mustBeOnlyAlloc checks that the job still has just this allocation: it
// was updated in place, not replaced.
func (a *testAgent) mustBeOnlyAlloc(jobID, allocID string) {
	a.t.Helper()
	stubs, err := a.jobAllocs(jobID)
	must.NoError(a.t, err)
	must.SliceLen(a.t, 1, stubs, must.Sprintf("allocations: %s", allocIDs(stubs)))
	must.Eq(a.t, allocID, stubs[0].ID)
}

// TestMaxRun_InPlaceRaise raises a running allocation's budget from 5 s
// to 30 s: the same allocation runs past 5 s and is killed near 30 s.
func TestMaxRun_InPlaceRaise(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	a.runJob(updateJob("raise", `max_run_duration = "5s"`, "1000"))
	alloc := a.waitRunning("raise")
	created := unixTime(alloc.CreateTime)
	deadlineOf(t, alloc, 5*time.Second)
	if time.Since(created) > 3*time.Second {
		t.Fatalf("the allocation took %s to run; no time left to update it before 5s", time.Since(created))
	}

	a.runJob(updateJob("raise", `max_run_duration = "30s"`, "1000"))
	updated := a.waitAlloc(alloc.ID, "on version 1", 10*time.Second, versionAtLeast(1))
	deadline := deadlineOf(t, updated, 30*time.Second)

	sleepUntil(created.Add(8 * time.Second))
	still, _, err := a.api.Allocations().Info(alloc.ID, nil)
	must.NoError(t, err)
	must.Eq(t, api.AllocClientStatusRunning, still.ClientStatus,
		must.Sprintf("8s after creation, with the budget raised to 30s: %s", still.ClientDescription))
	a.mustBeOnlyAlloc("raise", alloc.ID)

	done := a.waitAlloc(alloc.ID, "terminal", 60*time.Second, terminal)
	mustTimedOutAt(t, done, "t", deadline, updateKillWithin)
	a.mustBeOnlyAlloc("raise", alloc.ID)
}

// TestMaxRun_InPlaceLowerBelowUsed lowers a running allocation's budget
// from 30 s to 3 s when 6 s of it are used: the deadline has passed, and
// the allocation is killed at once.
func TestMaxRun_InPlaceLowerBelowUsed(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	a.runJob(updateJob("lower", `max_run_duration = "30s"`, "1000"))
	alloc := a.waitRunning("lower")
	created := unixTime(alloc.CreateTime)

	sleepUntil(created.Add(6 * time.Second))
	updatedAt := time.Now()
	a.runJob(updateJob("lower", `max_run_duration = "3s"`, "1000"))

	done := a.waitAlloc(alloc.ID, "terminal", 30*time.Second, terminal)
	deadlineOf(t, done, 3*time.Second)
	must.Eq(t, uint64(1), jobVersion(done), must.Sprint("the allocation must have been updated in place"))
	mustTimedOutAt(t, done, "t", updatedAt, updateKillWithin)
	a.mustBeOnlyAlloc("lower", alloc.ID)
}

// TestMaxRun_InPlaceRemove removes the budget of a running allocation
// before its deadline: the task runs to its own end past the old
// deadline, and the allocation completes without the deadline's reason.
func TestMaxRun_InPlaceRemove(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	a.runJob(updateJob("remove", `max_run_duration = "5s"`, "8"))
	alloc := a.waitRunning("remove")
	created := unixTime(alloc.CreateTime)
	oldDeadline := deadlineOf(t, alloc, 5*time.Second)
	if time.Since(created) > 2*time.Second {
		t.Fatalf("the allocation took %s to run; no time left to update it before 5s", time.Since(created))
	}

	sleepUntil(created.Add(2 * time.Second))
	a.runJob(updateJob("remove", "", "8"))
	updated := a.waitAlloc(alloc.ID, "on version 1", 10*time.Second, versionAtLeast(1))
	must.Eq(t, 0, updated.MaxRunDeadline, must.Sprint("the deadline must be gone with the budget"))

	done := a.waitAlloc(alloc.ID, "terminal", 30*time.Second, terminal)
	must.Eq(t, api.AllocClientStatusComplete, done.ClientStatus)
	must.NotEq(t, exceededDescription, done.ClientDescription)
	ts := task(t, done, "t")
	must.Nil(t, event(ts, "Killing"), must.Sprintf("events: %v", events(ts)))
	terminated := event(ts, "Terminated")
	must.NotNil(t, terminated, must.Sprintf("events: %v", events(ts)))
	must.Eq(t, 0, terminated.ExitCode)
	must.True(t, ts.FinishedAt.After(oldDeadline.Add(2*time.Second)),
		must.Sprintf("task finished at %s, before sleep 8 could end", ts.FinishedAt))
	a.mustBeOnlyAlloc("remove", alloc.ID)
}

// TestMaxRun_ConstraintChangeIsNotInPlace changes a constraint, one the
// only node fails, together with max_run_duration: the update needs a
// feasibility check, so the running allocation is not updated in place:
// it keeps its version and its deadline, and the new version fails to
// place.
func TestMaxRun_ConstraintChangeIsNotInPlace(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	a.runJob(updateJob("constrained", `max_run_duration = "30s"`, "1000"))
	alloc := a.waitRunning("constrained")
	deadline := alloc.MaxRunDeadline

	job := a.parseJob(updateJob("constrained", `max_run_duration = "20s"
    constraint {
      attribute = "${attr.kernel.name}"
      value     = "plan9"
    }`, "1000"))
	evalID := a.register(job)
	var eval *api.Evaluation
	a.waitFor("the update's evaluation to finish", 30*time.Second, func() error {
		var err error
		eval, _, err = a.api.Evaluations().Info(evalID, nil)
		if err != nil {
			return err
		}
		if eval.Status == api.EvalStatusPending {
			return fmt.Errorf("%w: eval %s", errNotYet, eval.Status)
		}
		return nil
	})

	after, _, err := a.api.Allocations().Info(alloc.ID, nil)
	must.NoError(t, err)
	must.Eq(t, uint64(0), jobVersion(after), must.Sprint("the allocation must not have moved to the new version in place"))
	must.Eq(t, deadline, after.MaxRunDeadline, must.Sprint("the old allocation's deadline must not change"))
	// The new version cannot be placed on the node; the scheduler stops
	// the old allocation only for a placed replacement, so it runs on.
	must.MapContainsKey(t, eval.FailedTGAllocs, "g",
		must.Sprintf("eval %s (%s) must report that the new version cannot be placed", eval.ID, eval.Status))
	t.Logf("old allocation: desired %s, client %s", after.DesiredStatus, after.ClientStatus)

	// No allocation of the job runs the new version.
	stubs, err := a.jobAllocs("constrained")
	must.NoError(t, err)
	for _, s := range stubs {
		if s.JobVersion != 0 {
			t.Fatalf("allocation %s runs version %d on a node that fails its constraint", s.ID, s.JobVersion)
		}
	}
}
