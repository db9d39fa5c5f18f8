package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// pendingJob is a batch job of count allocations whose group waits at
// most budget for a node.
func pendingJob(id string, count int, budget time.Duration) *structs.Job {
	job := testJob(id)
	job.TaskGroups[0].Count = count
	job.TaskGroups[0].MaxPendingDuration = new(budget)
	return job
}

// blockedEvalOf waits for the registration's blocked evaluation and
// returns it.
func blockedEvalOf(t *testing.T, s *Server, resp *JobRegisterResponse) *structs.Evaluation {
	t.Helper()
	var blocked *structs.Evaluation
	waitfor.True(t, "a blocked evaluation", func() bool {
		eval, err := s.State().EvalByID(nil, resp.EvalID)
		if err != nil || eval == nil || eval.BlockedEval == "" {
			return false
		}
		blocked, err = s.State().EvalByID(nil, eval.BlockedEval)
		return err == nil && blocked != nil
	})
	return blocked
}

// TestPendingTimeout_PartlyPlaced: of 10 placements on a node with room
// for 6, the 4 that wait longer than max_pending_duration are given up:
// the blocked evaluation is cancelled with the reason, counting from the
// registration's evaluation, the summary counts them, and a node that
// joins afterwards gets none of them.
func TestPendingTimeout_PartlyPlaced(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	registerNodes(t, s, 1) // room for 6 default allocations (memory)

	resp := mustRegister(t, s, pendingJob("wide", 10, time.Second))
	blocked := blockedEvalOf(t, s, resp)
	registered, err := s.State().EvalByID(nil, resp.EvalID)
	must.NoError(t, err)
	must.Eq(t, registered.CreateTime, blocked.PendingSince, must.Sprint("counted from the evaluation that asked"))

	waitfor.True(t, "the placements given up", func() bool {
		return evalStatus(t, s, blocked.ID) == structs.EvalStatusCancelled
	})
	blocked, err = s.State().EvalByID(nil, blocked.ID)
	must.NoError(t, err)
	must.Eq(t, structs.EvalStatusDescPendingTimeout, blocked.StatusDescription)
	must.Eq(t, map[string]int{"group": 4}, blocked.PendingExpired)
	must.GreaterEq(t, blocked.PendingSince+int64(time.Second), blocked.ModifyTime, must.Sprint("not before the deadline"))
	summary, err := s.State().JobSummaryByID(nil, structs.DefaultNamespace, "wide")
	must.NoError(t, err)
	must.Eq(t, structs.TaskGroupSummary{Starting: 6, PendingExpired: 4}, summary.Summary["group"])
	waitfor.True(t, "the blocked evaluation forgotten", func() bool { return s.blockedEvals.Stats().TotalBlocked == 0 })

	registerNodes(t, s, 1)
	time.Sleep(200 * time.Millisecond) // nothing is to happen: give it the chance
	must.Len(t, 6, liveAllocs(t, s, "wide"), must.Sprint("a given-up placement is not made again"))
}

// TestPendingTimeout_NothingPlacedEndsDead: a job none of whose
// placements ever found a node ends dead once they are given up.
func TestPendingTimeout_NothingPlacedEndsDead(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	resp := mustRegister(t, s, pendingJob("nowhere", 2, 500*time.Millisecond))
	blocked := blockedEvalOf(t, s, resp)
	must.Eq(t, structs.JobStatusPending, jobStatus(t, s, "nowhere"))
	waitfor.True(t, "the job dead", func() bool { return jobStatus(t, s, "nowhere") == structs.JobStatusDead })
	blocked, err := s.State().EvalByID(nil, blocked.ID)
	must.NoError(t, err)
	must.Eq(t, structs.EvalStatusCancelled, blocked.Status)
	must.Eq(t, map[string]int{"group": 2}, blocked.PendingExpired)
}

// TestPendingTimeout_SurvivesRestart: the deadline is in the raft state,
// so a server that leads again re-arms it: the placements are given up
// by the new leader, at the instant counted from the first registration.
func TestPendingTimeout_SurvivesRestart(t *testing.T) {
	cfg := testConfig(t, "durable")
	cfg.DataDir = t.TempDir()
	cfg.DevMode = false
	s, err := NewServer(cfg)
	must.NoError(t, err)
	waitForLeader(t, s)
	resp := mustRegister(t, s, pendingJob("waiting", 1, 3*time.Second))
	blocked := blockedEvalOf(t, s, resp)
	_, armed := s.pendingTimers.Deadline(blocked.ID)
	must.True(t, armed)
	must.NoError(t, s.Shutdown())

	cfg.Logger = testLogger(t, "durable-restarted")
	s = startServer(t, cfg)
	waitForLeader(t, s)
	waitfor.True(t, "the given-up placements", func() bool {
		return evalStatus(t, s, blocked.ID) == structs.EvalStatusCancelled
	})
	got, err := s.State().EvalByID(nil, blocked.ID)
	must.NoError(t, err)
	must.Eq(t, structs.EvalStatusDescPendingTimeout, got.StatusDescription)
	must.GreaterEq(t, blocked.PendingSince+int64(3*time.Second), got.ModifyTime)
	registerNodes(t, s, 1)
	time.Sleep(200 * time.Millisecond)
	must.Len(t, 0, liveAllocs(t, s, "waiting"))
}

// TestFSMEvents_PendingExpired: the evaluation change that gives up
// placements for max_pending_duration is an EvaluationPendingExpired
// event; the same evaluation written again without more given up is an
// EvaluationUpdated one.
func TestFSMEvents_PendingExpired(t *testing.T) {
	fsm, _, sub := eventFSM(t)
	job := pendingJob("example", 3, time.Second)
	blocked := testEval("example")
	blocked.Status = structs.EvalStatusBlocked
	blocked.QueuedAllocations = map[string]int{"group": 3}
	blocked.CreateTime = time.Unix(100, 0).UnixNano()
	mustApply(t, fsm, 5, &logentry.JobRegister{Job: job, Eval: blocked})
	_, lines := nextBatch(t, sub)
	must.Eq(t, []string{"Job JobRegistered example", "Evaluation EvaluationUpdated " + blocked.ID}, lines)

	stored, err := fsm.State().EvalByID(nil, blocked.ID)
	must.NoError(t, err)
	must.Nil(t, stored.ExpirePending(job, time.Unix(101, -1)), must.Sprint("a nanosecond early"))
	given := stored.ExpirePending(job, time.Unix(101, 0))
	must.NotNil(t, given)
	must.Eq(t, structs.EvalStatusCancelled, given.Status)
	mustApply(t, fsm, 6, &logentry.EvalUpdate{Evals: []*structs.Evaluation{given}})
	_, lines = nextBatch(t, sub)
	must.Eq(t, []string{"Evaluation EvaluationPendingExpired " + blocked.ID}, lines)

	mustApply(t, fsm, 7, &logentry.EvalUpdate{Evals: []*structs.Evaluation{given}})
	_, lines = nextBatch(t, sub)
	must.Eq(t, []string{"Evaluation EvaluationUpdated " + blocked.ID}, lines)
}
