package e2e

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestUI_DispatchDeadlineSource opens, in a real browser, the allocation
// of a job dispatched with a max_run_duration of its own: the page says
// where the budget comes from, as alloc status does.
func TestUI_DispatchDeadlineSource(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	b := startBrowser(t, a.Addr)
	a.mustCLI("job run", writeFile(t, a.dir, "dispatch.hcl", dispatchJob))
	budget := 45 * time.Second
	d, _, err := a.api.Jobs().Dispatch(&api.JobDispatchRequest{
		JobID: "dispatch-e2e", Payload: []byte("x"), Meta: map[string]string{"who": "ui", "sleep": "1000"}, MaxRunDuration: &budget,
	}, nil)
	must.NoError(t, err)
	alloc := a.waitRunning(d.DispatchedJobID)

	b.open("/ui/allocations/"+alloc.ID, "#max-run-duration")
	b.waitText("the budget and its source", "#max-run-duration", func(s string) bool { return s == "45s (set by dispatch)" })
	b.noProblems()
	a.mustCLI("job stop", d.DispatchedJobID)
}
