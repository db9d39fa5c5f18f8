package scheduler

import (
	"cmp"
	"fmt"
	"maps"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-hclog"
)

// scheduler is what every job type's scheduler shares: its dependencies
// and the loop that plans, submits and retries.
type scheduler struct {
	jobType string
	logger  hclog.Logger
	state   State
	planner Planner
	now     func() time.Time
}

// maxAttempts is how many plans a scheduler submits for one evaluation
// before it gives up on a state that keeps changing under it. Batch work
// gives up sooner: its evaluation is retried anyway.
func maxAttempts(jobType string) int {
	switch jobType {
	case structs.JobTypeBatch, structs.JobTypeSysbatch:
		return 2
	}
	return 5
}

// groupBuilder plans one task group of the job, given the group's
// current allocations.
type groupBuilder func(ctx *planContext, tg *structs.TaskGroup, allocs []*structs.Allocation) error

// process plans the evaluation, each group with buildGroup, submits the
// plan and, when the planner commits only part of it, plans again against
// the refreshed state.
func (s *scheduler) process(eval *structs.Evaluation, buildGroup groupBuilder) error {
	if eval == nil {
		return fmt.Errorf("%s scheduler: evaluation is nil", s.jobType)
	}
	run := &evalRun{followups: make(map[string]*structs.Evaluation)}
	state := s.state
	attempts := maxAttempts(s.jobType)
	for attempt := 1; ; attempt++ {
		ctx, err := s.newPlanContext(state, eval, run)
		if err != nil {
			return fmt.Errorf("evaluation %s: %w", eval.ID, err)
		}
		if err := ctx.build(buildGroup); err != nil {
			return fmt.Errorf("evaluation %s: plan: %w", eval.ID, err)
		}
		if err := ctx.scheduleFollowups(); err != nil {
			return fmt.Errorf("evaluation %s: %w", eval.ID, err)
		}
		ctx.plan.Deployment = ctx.deploy.Created()
		ctx.plan.DeploymentUpdates = ctx.deploy.Ended()
		if ctx.plan.IsNoOp() {
			return ctx.finish()
		}
		result, refreshed, err := s.planner.SubmitPlan(ctx.plan)
		if err != nil {
			return fmt.Errorf("evaluation %s: submit plan: %w", eval.ID, err)
		}
		full, expected, actual := result.FullCommit(ctx.plan)
		if full {
			return ctx.finish()
		}
		s.logger.Debug("plan partially committed", "eval_id", eval.ID, "attempt", attempt, "expected", expected, "committed", actual)
		if attempt >= attempts {
			return ctx.giveUp(attempts)
		}
		if refreshed != nil {
			state = refreshed
		}
	}
}

// build plans the job: a job that wants no allocations has all of them
// stopped; otherwise the allocations of groups the job no longer has are
// stopped and each group is planned with buildGroup.
func (ctx *planContext) build(buildGroup groupBuilder) error {
	if !ctx.jobWantsAllocs() {
		ctx.stopAll()
		return nil
	}
	groups := ctx.allocsByGroup()
	ctx.stopRemovedGroups(groups)
	if end, ok := ctx.jobEndedByPolicy(); ok {
		ctx.endByPolicy(end)
		return nil
	}
	for _, tg := range ctx.job.TaskGroups {
		if err := buildGroup(ctx, tg, groups[tg.Name]); err != nil {
			return err
		}
	}
	return nil
}

// finish records the evaluation's outcome: complete, or blocked again when
// it was a blocked evaluation that still cannot place everything. Failed
// placements leave a blocked evaluation that the server runs again when
// capacity changes.
func (ctx *planContext) finish() error {
	updated := ctx.outcome(structs.EvalStatusComplete)
	updated.StatusDescription = ctx.givenUpDescription()
	if ctx.policyEnd != "" {
		updated.StatusDescription = ctx.policyEnd
	}
	if ctx.needsBlockedEval() {
		if ctx.eval.Status == structs.EvalStatusBlocked {
			updated.Status = structs.EvalStatusBlocked
			updated.StatusDescription = "blocked: allocations remain to be placed"
			if err := ctx.planner.ReblockEval(updated); err != nil {
				return fmt.Errorf("evaluation %s: reblock: %w", ctx.eval.ID, err)
			}
			return nil
		}
		blocked := ctx.followupEval(structs.EvalTriggerQueuedAllocs, structs.EvalStatusBlocked)
		blocked.StatusDescription = "created to place remaining allocations"
		// max_pending_duration counts from the evaluation that asked for
		// the placements, which may itself have been a follow-up.
		blocked.PendingSince = cmp.Or(ctx.eval.PendingSince, ctx.eval.CreateTime)
		// What it waits for, which its max_pending_duration timer reads.
		blocked.QueuedAllocations = maps.Clone(updated.QueuedAllocations)
		if err := ctx.planner.CreateEval(blocked); err != nil {
			return fmt.Errorf("evaluation %s: create blocked evaluation: %w", ctx.eval.ID, err)
		}
		updated.BlockedEval = blocked.ID
	}
	if err := ctx.planner.UpdateEval(updated); err != nil {
		return fmt.Errorf("evaluation %s: update: %w", ctx.eval.ID, err)
	}
	return nil
}

// giveUp fails the evaluation after too many partial commits, and leaves a
// follow-up evaluation to try again.
func (ctx *planContext) giveUp(attempts int) error {
	next := ctx.followupEval(structs.EvalTriggerMaxPlans, structs.EvalStatusPending)
	if err := ctx.planner.CreateEval(next); err != nil {
		return fmt.Errorf("evaluation %s: create follow-up evaluation: %w", ctx.eval.ID, err)
	}
	updated := ctx.outcome(structs.EvalStatusFailed)
	updated.StatusDescription = fmt.Sprintf("maximum attempts reached (%d)", attempts)
	updated.NextEval = next.ID
	updated.QueuedAllocations = nil
	if err := ctx.planner.UpdateEval(updated); err != nil {
		return fmt.Errorf("evaluation %s: update: %w", ctx.eval.ID, err)
	}
	return nil
}

// outcome is a copy of the evaluation with the attempt's results.
func (ctx *planContext) outcome(status string) *structs.Evaluation {
	updated := *ctx.eval
	updated.Status = status
	updated.StatusDescription = ""
	updated.SnapshotIndex = ctx.index
	updated.FailedTGAllocs = nil
	if len(ctx.failedTG) > 0 {
		updated.FailedTGAllocs = ctx.failedTG
	}
	updated.QueuedAllocations = nil
	if ctx.job != nil {
		updated.QueuedAllocations = ctx.queued
	}
	updated.ModifyTime = ctx.now.UnixNano()
	return &updated
}
