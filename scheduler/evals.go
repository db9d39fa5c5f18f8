package scheduler

import (
	"fmt"
	"slices"

	"github.com/drover-io/drover/structs"
)

// followupEval returns a new evaluation of the job that follows the one
// being processed.
func (ctx *planContext) followupEval(trigger, status string) *structs.Evaluation {
	now := ctx.now.UnixNano()
	eval := &structs.Evaluation{
		ID:           structs.GenerateUUID(),
		Namespace:    ctx.eval.Namespace,
		Priority:     ctx.eval.Priority,
		Type:         ctx.jobType,
		TriggeredBy:  trigger,
		JobID:        ctx.eval.JobID,
		Status:       status,
		PreviousEval: ctx.eval.ID,
		CreateTime:   now,
		ModifyTime:   now,
	}
	if ctx.job != nil {
		eval.Priority = ctx.job.Priority
		eval.JobModifyIndex = ctx.job.JobModifyIndex
	}
	return eval
}

// scheduleFollowups creates the evaluations that reschedule failed
// allocations once their delays end, one per batch of delays ending within
// followupBatchWindow of each other, and records each evaluation's ID on
// its allocations through the plan. An allocation given a follow-up by an
// earlier attempt keeps it.
func (ctx *planContext) scheduleFollowups() error {
	later := ctx.later
	slices.SortStableFunc(later, func(a, b laterReschedule) int { return a.at.Compare(b.at) })
	var batch []laterReschedule
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		eval := ctx.followupEval(structs.EvalTriggerRetryFailedAlloc, structs.EvalStatusPending)
		eval.WaitUntil = batch[len(batch)-1].at
		if err := ctx.planner.CreateEval(eval); err != nil {
			return fmt.Errorf("create follow-up evaluation: %w", err)
		}
		for _, l := range batch {
			ctx.run.followups[l.alloc.ID] = eval
		}
		batch = batch[:0]
		return nil
	}
	for _, l := range later {
		if _, done := ctx.run.followups[l.alloc.ID]; done {
			continue
		}
		if len(batch) > 0 && l.at.Sub(batch[0].at) > followupBatchWindow {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, l)
	}
	if err := flush(); err != nil {
		return err
	}
	for _, l := range later {
		annotated := *l.alloc
		annotated.FollowupEvalID = ctx.run.followups[l.alloc.ID].ID
		ctx.plan.AppendAlloc(&annotated)
	}
	return nil
}
