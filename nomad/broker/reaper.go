package broker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/structs"
)

// Cancelling redundant evaluations.
const (
	cancelInterval  = 250 * time.Millisecond
	cancelBatchSize = 256
	cancelledDesc   = "canceled after more recent eval was processed"
)

// Reaper marks failed the evaluations that reached their delivery limit,
// and cancelled the ones made redundant by newer ones of the same job,
// on the leader.
type Reaper struct {
	Evals   *EvalBroker
	Blocked *BlockedEvals
	// Update writes evaluations: through raft, on the server.
	Update func(ctx context.Context, evals []*structs.Evaluation) error
	// DeliveryLimit is the broker's, which the failed say they reached.
	DeliveryLimit int
	// FollowupDelay is how long, and up to half again, the follow-up of
	// a failed evaluation waits.
	FollowupDelay time.Duration
	Logger        hclog.Logger
}

// ReapFailed marks failed the evaluations that reached their delivery
// limit, each with a follow-up evaluation that tries the job again after
// a delay, until ctx ends.
func (r *Reaper) ReapFailed(ctx context.Context) {
	for {
		eval, token, err := r.Evals.Dequeue(ctx, []string{failedQueue})
		if err != nil {
			return
		}
		if err := r.failEval(ctx, eval); err != nil {
			r.Logger.Error("mark evaluation failed", "eval_id", eval.ID, "error", err)
			if nerr := r.Evals.Nack(eval.ID, token); nerr != nil {
				r.Logger.Debug("nack failed evaluation", "eval_id", eval.ID, "error", nerr)
			}
			continue
		}
		if err := r.Evals.Ack(eval.ID, token); err != nil {
			r.Logger.Debug("ack failed evaluation", "eval_id", eval.ID, "error", err)
		}
	}
}

func (r *Reaper) failEval(ctx context.Context, eval *structs.Evaluation) error {
	now := time.Now()
	delay := r.FollowupDelay
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
	failed.StatusDescription = fmt.Sprintf("evaluation reached delivery limit (%d)", r.DeliveryLimit)
	failed.NextEval = followup.ID
	failed.ModifyTime = now.UnixNano()
	r.Logger.Warn("evaluation reached its delivery limit; marking it failed", "eval_id", eval.ID, "job_id", eval.JobID, "followup_eval_id", followup.ID)
	return r.Update(ctx, []*structs.Evaluation{failed, followup})
}

// ReapCancelable marks cancelled the evaluations made redundant by
// newer ones of the same job, until ctx ends.
func (r *Reaper) ReapCancelable(ctx context.Context) {
	ticker := time.NewTicker(cancelInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		evals := append(r.Evals.Cancelable(), r.Blocked.Duplicates()...)
		for len(evals) > 0 {
			n := min(len(evals), cancelBatchSize)
			if err := r.cancelEvals(ctx, evals[:n]); err != nil {
				r.Logger.Warn("cancel redundant evaluations", "count", n, "error", err)
			}
			evals = evals[n:]
		}
	}
}

func (r *Reaper) cancelEvals(ctx context.Context, evals []*structs.Evaluation) error {
	now := time.Now().UnixNano()
	cancelled := make([]*structs.Evaluation, len(evals))
	for i, e := range evals {
		c := e.Copy()
		c.Status = structs.EvalStatusCancelled
		c.StatusDescription = cancelledDesc
		c.ModifyTime = now
		cancelled[i] = c
	}
	return r.Update(ctx, cancelled)
}
