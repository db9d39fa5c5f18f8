package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// TestServer_TimeoutUnderOnFailureIsEvaluated: an allocation a deadline
// ended complete gets an evaluation of its job when its group has
// on_failure rules (they may ask for it to run again), and none without.
func TestServer_TimeoutUnderOnFailureIsEvaluated(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	retries := func(jobID string, index uint64) int {
		evals, err := s.State().EvalsByJob(nil, structs.DefaultNamespace, jobID)
		must.NoError(t, err)
		n := 0
		for _, e := range evals {
			if e.TriggeredBy == structs.EvalTriggerRetryFailedAlloc && e.CreateIndex == index {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		id    string
		rules []*structs.OnFailureRule
		want  int
	}{
		{"with-rules", []*structs.OnFailureRule{{Reasons: []string{structs.FailureReasonTimeout}, Action: structs.OnFailureRetry}}, 1},
		{"without", nil, 0},
	} {
		job := testJob(c.id)
		job.TaskGroups[0].MaxRunDuration = new(time.Minute)
		job.TaskGroups[0].OnFailure = c.rules
		_, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: job})
		must.NoError(t, err)
		stored, err := s.State().JobByID(nil, structs.DefaultNamespace, c.id)
		must.NoError(t, err)
		alloc := testAlloc(stored, "node-1")
		_, err = s.Apply(ctx, logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
		must.NoError(t, err)

		timedOut := &structs.Allocation{ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete, ClientDescription: structs.AllocTimeoutReasonMaxRunDuration}
		index, err := s.UpdateAllocsFromClient(ctx, []*structs.Allocation{timedOut})
		must.NoError(t, err)
		must.Eq(t, c.want, retries(c.id, index), must.Sprint(c.id))
	}
}
