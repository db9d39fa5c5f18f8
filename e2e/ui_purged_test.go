package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestUI_PurgedRunsNotCounted follows the README's purge-and-rerun: a job
// whose allocation timed out is purged and run again under the same ID.
// The allocation of the purged run stays in the cluster's state until it is
// collected, but the jobs and clients pages count only the job as it now
// exists: the rerun's row says nothing timed out, and the client has none.
func TestUI_PurgedRunsNotCounted(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	b := startBrowser(t, a.Addr)
	a.runJob(sleepJob("rerun", "batch", "1s", 1000))
	a.mustTimeOut("rerun", "t", time.Second)
	a.mustCLI("job stop", "-purge", "rerun")
	a.runJob(sleepJob("rerun", "batch", "1h", 1000))
	a.waitRunning("rerun")

	b.open("/ui/jobs", "#jobs tbody")
	row := b.waitText("the rerun's row", `#jobs tr[data-job="rerun"]`, func(s string) bool { return strings.Contains(s, "running") })
	must.StrNotContains(t, row, "timed out")
	b.open("/ui/clients", "#clients tbody")
	clients := b.waitText("the client's row", "#clients tbody", func(s string) bool { return strings.Contains(s, "1 running / 1") })
	must.StrNotContains(t, clients, "timed out")
	b.noProblems()
	a.mustCLI("job stop", "-purge", "rerun")
}
