package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestLeader_EvalPastDeliveryLimitFailsWithFollowUp(t *testing.T) {
	cfg := testConfig(t, "dev")
	cfg.EvalDeliveryLimit = 2
	cfg.EvalNackInitialDelay = 10 * time.Millisecond
	cfg.EvalNackSubsequentDelay = 10 * time.Millisecond
	cfg.EvalFailedFollowupDelay = time.Hour
	s := startServer(t, cfg)
	waitForLeader(t, s)

	// No scheduler takes this type: every delivery fails.
	eval := testEval("odd")
	eval.Type = "nonsense"
	_, err := s.UpsertEvals(testCtx(t), []*structs.Evaluation{eval})
	must.NoError(t, err)
	waitfor.True(t, "the evaluation to fail", func() bool { return evalStatus(t, s, eval.ID) == structs.EvalStatusFailed })

	failed, err := s.State().EvalByID(nil, eval.ID)
	must.NoError(t, err)
	must.StrContains(t, failed.StatusDescription, "delivery limit (2)")
	must.NotEq(t, "", failed.NextEval)
	followup, err := s.State().EvalByID(nil, failed.NextEval)
	must.NoError(t, err)
	must.Eq(t, structs.EvalStatusPending, followup.Status)
	must.Eq(t, structs.EvalTriggerFailedFollowUp, followup.TriggeredBy)
	must.Eq(t, eval.ID, followup.PreviousEval)
	must.True(t, followup.WaitUntil.After(time.Now().Add(30*time.Minute)))
	must.Eq(t, 1, s.EvalBrokerStats().TotalWaiting, must.Sprint("the follow-up waits for its time"))
}

func TestLeader_RestartRestoresBlockedEvals(t *testing.T) {
	cfg := testConfig(t, "durable")
	cfg.DataDir = t.TempDir()
	cfg.DevMode = false
	s, err := NewServer(cfg)
	must.NoError(t, err)
	waitForLeader(t, s)
	resp := mustRegister(t, s, testJob("waiting"))
	waitfor.True(t, "a blocked evaluation", func() bool {
		eval, err := s.State().EvalByID(nil, resp.EvalID)
		return err == nil && eval.BlockedEval != "" && evalStatus(t, s, eval.BlockedEval) == structs.EvalStatusBlocked
	})
	must.NoError(t, s.Shutdown())

	// The new leader tracks the blocked evaluation again: a node that
	// joins unblocks it.
	cfg.Logger = testLogger(t, "durable-restarted")
	s = startServer(t, cfg)
	waitForLeader(t, s)
	waitfor.True(t, "the blocked evaluation tracked", func() bool { return s.blockedEvals.Stats().TotalBlocked == 1 })
	registerNodes(t, s, 1)
	waitfor.True(t, "the job placed", func() bool { return len(liveAllocs(t, s, "waiting")) == 1 })
}
