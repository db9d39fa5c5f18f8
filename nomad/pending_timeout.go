package nomad

import (
	"context"
	"time"

	"github.com/drover-io/drover/structs"
)

// max_pending_duration: a blocked evaluation's placements of a group that
// has one are given up once they have waited that long since the
// evaluation that asked for them (structs.Evaluation.PendingSince). The
// leader arms one timer per such blocked evaluation (pendingtimeout),
// from the state when it gains leadership and from every evaluation
// applied after; when one fires it writes the evaluation back through
// raft with the placements given up (structs.Evaluation.ExpirePending):
// cancelled, "exceeded max_pending_duration", once nothing else waits.

// pendingRetry is how long the leader waits before trying again a
// give-up whose raft write failed.
const pendingRetry = time.Second

// observePending arms, moves or disarms the timer of an evaluation just
// applied, and drops from the blocked tracker one whose placements were
// all given up.
func (s *Server) observePending(e *structs.Evaluation) {
	if e.Status == structs.EvalStatusCancelled && e.StatusDescription == structs.EvalStatusDescPendingTimeout {
		s.blockedEvals.Forget(e.Namespace, e.JobID, e.ID)
	}
	s.watchPending(e)
}

// watchPending arms the evaluation's timer at its next pending deadline,
// or disarms it when it has none (it is not blocked, or no group it waits
// for has a max_pending_duration). It does nothing but on the leader.
func (s *Server) watchPending(e *structs.Evaluation) {
	if e.Status != structs.EvalStatusBlocked {
		s.pendingTimers.Stop(e.ID)
		return
	}
	job, err := s.State().JobByID(nil, e.Namespace, e.JobID)
	if err != nil {
		s.logger.Warn("max_pending_duration: read the job of a blocked evaluation", "eval_id", e.ID, "error", err)
		return
	}
	at, ok := e.NextPendingDeadline(job)
	if !ok {
		s.pendingTimers.Stop(e.ID)
		return
	}
	s.pendingTimers.Set(e.ID, at)
}

// expirePending gives up the placements of the blocked evaluation evalID
// whose deadline passed, through raft. It runs on the timer's goroutine.
func (s *Server) expirePending(evalID string) {
	st := s.State()
	e, err := st.EvalByID(nil, evalID)
	if err != nil || e == nil || e.Status != structs.EvalStatusBlocked {
		return
	}
	job, err := st.JobByID(nil, e.Namespace, e.JobID)
	if err != nil {
		s.logger.Warn("max_pending_duration: read the job of a blocked evaluation", "eval_id", e.ID, "error", err)
		return
	}
	updated := e.ExpirePending(job, time.Now())
	if updated == nil {
		// The job changed its max_pending_duration since the timer was
		// armed: arm it again at the deadline that now applies.
		s.watchPending(e)
		return
	}
	ctx, cancel := context.WithTimeout(s.shutdownCtx, s.config.RaftApplyTimeout)
	defer cancel()
	if err := s.updateEvals(ctx, []*structs.Evaluation{updated}); err != nil {
		s.logger.Warn("max_pending_duration: give up placements", "eval_id", e.ID, "job_id", e.JobID, "error", err)
		s.pendingTimers.Set(e.ID, time.Now().Add(pendingRetry))
		return
	}
	s.logger.Info("gave up placements that exceeded max_pending_duration",
		"eval_id", e.ID, "job_id", e.JobID, "namespace", e.Namespace, "given_up", updated.PendingExpired)
}
