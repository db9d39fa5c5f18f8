package nomad

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/drover-io/drover/nomad/broker"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// Cancelling redundant evaluations.
const (
	cancelInterval  = 250 * time.Millisecond
	cancelBatchSize = 256
	cancelledDesc   = "canceled after more recent eval was processed"
)

// reapFailedEvals marks failed the evaluations that reached their delivery
// limit, each with a follow-up evaluation that tries the job again after
// a delay, until ctx ends.
func (s *Server) reapFailedEvals(ctx context.Context) {
	for {
		eval, token, err := s.evalBroker.Dequeue(ctx, []string{broker.FailedQueue})
		if err != nil {
			return
		}
		if err := s.failEval(ctx, eval); err != nil {
			s.logger.Error("mark evaluation failed", "eval_id", eval.ID, "error", err)
			if nerr := s.evalBroker.Nack(eval.ID, token); nerr != nil {
				s.logger.Debug("nack failed evaluation", "eval_id", eval.ID, "error", nerr)
			}
			continue
		}
		if err := s.evalBroker.Ack(eval.ID, token); err != nil {
			s.logger.Debug("ack failed evaluation", "eval_id", eval.ID, "error", err)
		}
	}
}

func (s *Server) failEval(ctx context.Context, eval *structs.Evaluation) error {
	now := time.Now()
	delay := s.config.EvalFailedFollowupDelay
	delay += time.Duration(rand.Int64N(int64(delay)/2 + 1))
	followup := &structs.Evaluation{
		ID:           structs.GenerateUUID(),
		Namespace:    eval.Namespace,
		Priority:     eval.Priority,
		Type:         eval.Type,
		TriggeredBy:  structs.EvalTriggerFailedFollowUp,
		JobID:        eval.JobID,
		Status:       structs.EvalStatusPending,
		Wait:         delay,
		WaitUntil:    now.Add(delay),
		PreviousEval: eval.ID,
		CreateTime:   now.UnixNano(),
		ModifyTime:   now.UnixNano(),
	}
	failed := eval.Copy()
	failed.Status = structs.EvalStatusFailed
	failed.StatusDescription = fmt.Sprintf("evaluation reached delivery limit (%d)", s.config.EvalDeliveryLimit)
	failed.NextEval = followup.ID
	failed.ModifyTime = now.UnixNano()
	s.logger.Warn("evaluation reached its delivery limit; marking it failed", "eval_id", eval.ID, "job_id", eval.JobID, "followup_eval_id", followup.ID)
	_, err := s.raftApply(ctx, logentry.MsgEvalUpdate, &logentry.EvalUpdate{Evals: []*structs.Evaluation{failed, followup}})
	return err
}

// reapCancelableEvals marks cancelled the evaluations made redundant by
// newer ones of the same job, until ctx ends.
func (s *Server) reapCancelableEvals(ctx context.Context) {
	ticker := time.NewTicker(cancelInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		evals := append(s.evalBroker.Cancelable(), s.blockedEvals.Duplicates()...)
		for len(evals) > 0 {
			n := min(len(evals), cancelBatchSize)
			if err := s.cancelEvals(ctx, evals[:n]); err != nil {
				s.logger.Warn("cancel redundant evaluations", "count", n, "error", err)
			}
			evals = evals[n:]
		}
	}
}

func (s *Server) cancelEvals(ctx context.Context, evals []*structs.Evaluation) error {
	now := time.Now().UnixNano()
	cancelled := make([]*structs.Evaluation, len(evals))
	for i, e := range evals {
		c := e.Copy()
		c.Status = structs.EvalStatusCancelled
		c.StatusDescription = cancelledDesc
		c.ModifyTime = now
		cancelled[i] = c
	}
	_, err := s.raftApply(ctx, logentry.MsgEvalUpdate, &logentry.EvalUpdate{Evals: cancelled})
	return err
}
