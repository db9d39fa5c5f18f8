package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// gcAgentConfig collects every second, so that what the thresholds and
// keep_last allow goes within a test's time.
const gcAgentConfig = `server {
  job_gc_interval = "1s"
}
`

// children lists the children of a periodic job, by ID.
func (a *testAgent) children(parent string) []*api.JobListStub {
	a.t.Helper()
	jobs, _, err := a.api.Jobs().PrefixList(parent + "/periodic-")
	if err != nil {
		a.fatalf("list children of %s: %v", parent, err)
	}
	slices.SortFunc(jobs, func(x, y *api.JobListStub) int { return strings.Compare(x.ID, y.ID) })
	return jobs
}

// TestGC_SystemGCCollectsJobEvalsAndAllocDir runs a batch job to its
// end, then `drover system gc` removes the job, its evaluation and its
// allocation from the servers, and the client removes the allocation's
// directory.
func TestGC_SystemGCCollectsJobEvalsAndAllocDir(t *testing.T) {
	skipShort(t)
	t.Parallel()
	proc, dir := startDevProcess(t, "")
	a := readyAgent(t, proc, dir)
	jobID := a.runJob(`job "gc-once" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo done"]
      }
    }
  }
}`)
	a.waitJobStatus(jobID, "dead", time.Minute)
	allocs, err := a.jobAllocs(jobID)
	must.NoError(t, err)
	must.Len(t, 1, allocs)
	allocID, evalID := allocs[0].ID, allocs[0].EvalID
	allocDir := filepath.Join(dir, "alloc", allocID)
	_, err = os.Stat(allocDir)
	must.NoError(t, err)

	// Within job_gc_threshold (4h), only the forced collection removes it.
	out := a.mustCLI("system gc")
	must.Eq(t, "", strings.TrimSpace(out))
	_, _, err = a.api.Jobs().Info(jobID, nil)
	must.True(t, isNotFound(err), must.Sprintf("job after system gc: %v", err))
	_, _, err = a.api.Evaluations().Info(evalID, nil)
	must.True(t, isNotFound(err), must.Sprintf("evaluation after system gc: %v", err))
	_, _, err = a.api.Allocations().Info(allocID, nil)
	must.True(t, isNotFound(err), must.Sprintf("allocation after system gc: %v", err))
	a.waitFor("the allocation's directory removed", 30*time.Second, func() error {
		if _, err := os.Stat(allocDir); !os.IsNotExist(err) {
			return fmt.Errorf("%w: %s still there (%v)", errNotYet, allocDir, err)
		}
		return nil
	})

	// Nomad's own client drives the same route, and reconcile summaries.
	nomad, err := nomadapi.NewClient(&nomadapi.Config{Address: a.Addr})
	must.NoError(t, err)
	must.NoError(t, nomad.System().GarbageCollect())
	must.NoError(t, nomad.System().ReconcileSummaries())
	must.StrContains(t, a.mustCLI("system reconcile summaries"), "Successfully reconciled job summaries")
}

// TestGC_ClientGCRemovesFinishedAllocDirs: Nomad's client asks the
// agent's client to remove one finished allocation, and then all; a
// running one is refused.
func TestGC_ClientGCRemovesFinishedAllocDirs(t *testing.T) {
	skipShort(t)
	t.Parallel()
	proc, dir := startDevProcess(t, "")
	a := readyAgent(t, proc, dir)
	for _, id := range []string{"gc-a", "gc-b"} {
		a.runJob(fmt.Sprintf(`job %q {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`, id))
		a.waitJobStatus(id, "dead", time.Minute)
	}
	a.runJob(`job "gc-live" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
    }
  }
}`)
	live := a.waitRunning("gc-live")
	nomad, err := nomadapi.NewClient(&nomadapi.Config{Address: a.Addr})
	must.NoError(t, err)

	err = nomad.Allocations().GC(&nomadapi.Allocation{ID: live.ID}, nil)
	must.ErrorContains(t, err, "not terminal")
	_, err = os.Stat(filepath.Join(dir, "alloc", live.ID))
	must.NoError(t, err)

	first, err := a.jobAllocs("gc-a")
	must.NoError(t, err)
	must.NoError(t, nomad.Allocations().GC(&nomadapi.Allocation{ID: first[0].ID}, nil))
	_, err = os.Stat(filepath.Join(dir, "alloc", first[0].ID))
	must.True(t, os.IsNotExist(err), must.Sprintf("collected alloc dir: %v", err))

	second, err := a.jobAllocs("gc-b")
	must.NoError(t, err)
	must.NoError(t, nomad.Nodes().GC(live.NodeID, nil))
	_, err = os.Stat(filepath.Join(dir, "alloc", second[0].ID))
	must.True(t, os.IsNotExist(err), must.Sprintf("collected alloc dir: %v", err))
	_, err = os.Stat(filepath.Join(dir, "alloc", live.ID))
	must.NoError(t, err)
}

// TestGC_PeriodicKeepLast: a job launched every 2 seconds, with
// keep_last = 2, keeps only its newest two dead children (and any child
// launched since the last pass); the collected children's allocation
// directories go too.
func TestGC_PeriodicKeepLast(t *testing.T) {
	skipShort(t)
	t.Parallel()
	proc, dir := startDevProcess(t, gcAgentConfig)
	a := readyAgent(t, proc, dir)
	a.runJob(`job "keep2" {
  type = "batch"
  periodic {
    crons     = ["*/2 * * * * * *"]
    keep_last = 2
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`)
	// Remember the first children's allocations while they exist.
	seen := map[string]string{} // alloc ID -> child
	a.waitFor("six launches", 2*time.Minute, func() error {
		for _, c := range a.children("keep2") {
			allocs, err := a.jobAllocs(c.ID)
			if err != nil && !isNotFound(err) {
				return err
			}
			for _, al := range allocs {
				seen[al.ID] = c.ID
			}
		}
		kids := a.children("keep2")
		if len(kids) == 0 {
			return fmt.Errorf("%w: no child yet", errNotYet)
		}
		if len(seen) < 6 {
			return fmt.Errorf("%w: %d allocations seen", errNotYet, len(seen))
		}
		return nil
	})
	a.waitFor("at most two dead children", time.Minute, func() error {
		dead := 0
		for _, c := range a.children("keep2") {
			if c.Status == "dead" {
				dead++
			}
		}
		// A pass every second: a child that died since the last one
		// may wait for the next.
		if dead > 3 {
			return fmt.Errorf("%w: %d dead children", errNotYet, dead)
		}
		return nil
	})
	// The oldest children and their allocation directories are gone.
	kids := a.children("keep2")
	alive := map[string]bool{}
	for _, c := range kids {
		alive[c.ID] = true
	}
	gone := 0
	for allocID, child := range seen {
		if alive[child] {
			continue
		}
		gone++
		a.waitFor("the collected child's allocation directory removed", 30*time.Second, func() error {
			if _, err := os.Stat(filepath.Join(dir, "alloc", allocID)); !os.IsNotExist(err) {
				return fmt.Errorf("%w: %s still there", errNotYet, allocID)
			}
			return nil
		})
	}
	must.Positive(t, gone)
	parent, _, err := a.api.Jobs().Info("keep2", nil)
	must.NoError(t, err)
	must.Eq(t, "running", deref(parent.Status))
}

// TestGC_PeriodicOverlapReplace: with overlap = "replace", each launch
// stops the child still running, which ends killed, and
// `job periodic force` does the same.
func TestGC_PeriodicOverlapReplace(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)
	a.runJob(`job "replacer" {
  type = "batch"
  periodic {
    crons   = ["*/4 * * * * * *"]
    overlap = "replace"
  }
  group "g" {
    task "t" {
      driver       = "raw_exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sleep"
        args    = ["600"]
      }
    }
  }
}`)
	a.waitFor("two children", time.Minute, func() error {
		if n := len(a.children("replacer")); n < 2 {
			return fmt.Errorf("%w: %d children", errNotYet, n)
		}
		return nil
	})
	first := a.children("replacer")[0]
	a.waitJobStatus(first.ID, "dead", time.Minute)
	info, _, err := a.api.Jobs().Info(first.ID, nil)
	must.NoError(t, err)
	must.True(t, deref(info.Stop), must.Sprint("the replaced child is stopped"))
	allocs, err := a.jobAllocs(first.ID)
	must.NoError(t, err)
	must.SliceNotEmpty(t, allocs)
	for _, al := range allocs {
		must.Eq(t, "stop", al.DesiredStatus)
		// Killed: its task got its signal, it never ran to its end.
		a.waitAlloc(al.ID, "the replaced child's allocation complete", time.Minute, clientStatus("complete"))
	}

	// A forced launch replaces the newest running child too.
	before := a.children("replacer")
	running := before[len(before)-1]
	a.mustCLI("job periodic force", "-detach", "replacer")
	a.waitJobStatus(running.ID, "dead", time.Minute)
	info, _, err = a.api.Jobs().Info(running.ID, nil)
	must.NoError(t, err)
	must.True(t, deref(info.Stop), must.Sprint("the child a forced launch replaced is stopped"))
}

// isNotFound reports whether an API error is a 404.
func isNotFound(err error) bool { return api.IsNotFound(err) }
