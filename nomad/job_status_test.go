package nomad

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestJobStatus_PendingRunningDead(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	// No node yet: the job waits.
	resp := mustRegister(t, s, designJob())
	waitfor.True(t, "the evaluation", func() bool { return evalStatus(t, s, resp.EvalID) == structs.EvalStatusComplete })
	must.Eq(t, structs.JobStatusPending, jobStatus(t, s, "maxrun"))

	// A node: the blocked evaluation places it.
	registerNodes(t, s, 1)
	waitfor.True(t, "the job to run", func() bool { return jobStatus(t, s, "maxrun") == structs.JobStatusRunning })
	allocs := liveAllocs(t, s, "maxrun")
	must.Len(t, 1, allocs)

	// The client reports it running, then complete.
	for _, status := range []string{structs.AllocClientStatusRunning, structs.AllocClientStatusComplete} {
		update := &structs.Allocation{ID: allocs[0].ID, ClientStatus: status}
		if status == structs.AllocClientStatusComplete {
			update.ClientDescription = structs.AllocTimeoutReasonMaxRunDuration
		}
		_, err := s.UpdateAllocsFromClient(ctx, []*structs.Allocation{update})
		must.NoError(t, err)
	}
	waitfor.True(t, "the job to be dead", func() bool { return jobStatus(t, s, "maxrun") == structs.JobStatusDead })
	summary, err := s.State().JobSummaryByID(nil, structs.DefaultNamespace, "maxrun")
	must.NoError(t, err)
	must.Eq(t, structs.TaskGroupSummary{Complete: 1}, summary.Summary["maxrun"])
}
