package e2e

import (
	"regexp"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// changeJob is a batch job of two allocations whose group's budget is
// groupLimit.
func changeJob(groupLimit string) string {
	return `job "change" {
  type = "batch"
  group "g" {
    count            = 2
    max_run_duration = "` + groupLimit + `"
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`
}

// TestMaxRun_ChangeOneAllocation moves live deadlines with `drover alloc
// deadline`: both allocations of a 6 s group are raised and run past 6 s;
// one is then lowered and stops at its lowered deadline; a job update of
// the group's limit to 16 s replaces the other's change, which stops at
// 16 s. Every deadline counts from the allocation's CreateTime. (The
// update also runs the job's finished allocation again, as a batch job's
// new version does; that one is not looked at.)
func TestMaxRun_ChangeOneAllocation(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	path := writeFile(t, a.dir, "change.hcl", changeJob("6s"))
	a.mustCLI("job run", "-detach", path)
	running := a.waitAllocs("change", 2, "running", 30*time.Second, clientStatus(api.AllocClientStatusRunning))
	lowered, replaced := running[0], running[1]
	created := unixTime(min(lowered.CreateTime, replaced.CreateTime))
	if time.Since(created) > 4*time.Second {
		t.Fatalf("the allocations took %s to run, too close to their 6s deadline", time.Since(created))
	}

	out := a.mustCLI("alloc deadline", lowered.ID, "+30s")
	must.RegexMatch(t, regexp.MustCompile(`Max Run Duration = 6s => 36s`), out)
	must.RegexMatch(t, regexp.MustCompile(`Deadline\s+= \S+ \(in \d+s\)`), out)
	a.mustCLI("alloc deadline", replaced.ID, "46s")
	for id, budget := range map[string]time.Duration{lowered.ID: 36 * time.Second, replaced.ID: 46 * time.Second} {
		alloc, _, err := a.api.Allocations().Info(id, nil)
		must.NoError(t, err)
		must.Eq(t, budget, alloc.MaxRunDuration)
		must.Eq(t, "allocation", alloc.MaxRunScope)
		deadlineOf(t, alloc, budget)
	}
	must.RegexMatch(t, regexp.MustCompile(`Max Run Duration\s+= 36s \(changed for this allocation\)`), a.mustCLI("alloc status", lowered.ID))

	// Past the group's 6s, both still run.
	sleepUntil(created.Add(8 * time.Second))
	for _, id := range []string{lowered.ID, replaced.ID} {
		alloc, _, err := a.api.Allocations().Info(id, nil)
		must.NoError(t, err)
		must.Eq(t, api.AllocClientStatusRunning, alloc.ClientStatus, must.Sprintf("alloc %s", id))
	}

	// Lowered to 12s, the first stops at CreateTime + 12s.
	a.mustCLI("alloc deadline", lowered.ID, "-24s")
	done := a.waitAlloc(lowered.ID, "complete", 30*time.Second, clientStatus(api.AllocClientStatusComplete))
	mustTimedOutAt(t, done, "t", deadlineOf(t, done, 12*time.Second), killWithin)

	// A job update of the group's limit replaces the second's change: it
	// stops at CreateTime + 16s, not 46s.
	writeFile(t, a.dir, "change.hcl", changeJob("16s"))
	a.mustCLI("job run", "-detach", path)
	done = a.waitAlloc(replaced.ID, "complete", 30*time.Second, clientStatus(api.AllocClientStatusComplete))
	mustEndByDeadline(t, done)
	must.Eq(t, "group", done.MaxRunScope)
	mustFinishWithin(t, task(t, done, "t"), deadlineOf(t, done, 16*time.Second), killWithin)

	// The update changed that allocation in place (the same one stopped
	// at its new deadline); it replaced neither.
	stubs, err := a.jobAllocs("change")
	must.NoError(t, err)
	for _, s := range stubs {
		alloc, _, err := a.api.Allocations().Info(s.ID, nil)
		must.NoError(t, err)
		must.NotEq(t, replaced.ID, alloc.PreviousAllocation, must.Sprintf("allocations: %s", allocIDs(stubs)))
		must.NotEq(t, lowered.ID, alloc.PreviousAllocation, must.Sprintf("allocations: %s", allocIDs(stubs)))
	}
}
