package scheduler

import (
	"fmt"
	"github.com/drover-io/drover/scheduler/deployment"
	"sort"
	"time"

	"github.com/drover-io/drover/structs"
)

// planContext is one attempt at planning an evaluation: the state it read
// and the plan it builds.
type planContext struct {
	*scheduler
	state State
	eval  *structs.Evaluation
	run   *evalRun

	// job is nil when it was purged.
	job    *structs.Job
	allocs []*structs.Allocation
	now    time.Time
	index  uint64

	nodes     *nodeSet
	scope     *jobScope
	usage     *usageIndex
	jobAllocs *jobAllocs
	placers   map[string]*groupPlacer

	plan *structs.Plan
	// deploy decides the job's deployments (scheduler/deployment).
	deploy   *deployment.Decision
	failedTG map[string]*structs.AllocMetric
	queued   map[string]int
	later    []laterReschedule
	// policyEnd is why an on_failure rule ended the job version, for the
	// evaluation's StatusDescription; empty when none did.
	policyEnd string
}

// evalRun is what outlives the attempts at one evaluation.
type evalRun struct {
	// followups are the follow-up evaluations created so far, by the ID
	// of the failed allocation they reschedule.
	followups map[string]*structs.Evaluation
}

// laterReschedule is a failed allocation to reschedule once its delay
// ends.
type laterReschedule struct {
	alloc *structs.Allocation
	at    time.Time
}

func (s *scheduler) newPlanContext(state State, eval *structs.Evaluation, run *evalRun) (*planContext, error) {
	ctx := &planContext{
		scheduler: s,
		state:     state,
		eval:      eval,
		run:       run,
		now:       s.now(),
		failedTG:  make(map[string]*structs.AllocMetric),
		queued:    make(map[string]int),
		placers:   make(map[string]*groupPlacer),
	}
	var err error
	if ctx.index, err = state.LatestIndex(); err != nil {
		return nil, fmt.Errorf("read state index: %w", err)
	}
	if ctx.job, err = state.JobByID(nil, eval.Namespace, eval.JobID); err != nil {
		return nil, fmt.Errorf("read job: %w", err)
	}
	if ctx.allocs, err = state.AllocsByJob(nil, eval.Namespace, eval.JobID); err != nil {
		return nil, fmt.Errorf("read allocations: %w", err)
	}
	ctx.plan = &structs.Plan{
		EvalID:        eval.ID,
		Priority:      eval.Priority,
		Job:           ctx.job,
		SnapshotIndex: ctx.index,
	}
	latest, err := state.LatestDeploymentByJob(nil, eval.Namespace, eval.JobID)
	if err != nil {
		return nil, fmt.Errorf("read deployment: %w", err)
	}
	ctx.deploy = deployment.Decide(ctx.job, latest, ctx.now)
	if !ctx.jobWantsAllocs() {
		return ctx, nil
	}
	ctx.plan.Priority = ctx.job.Priority
	ctx.plan.AllAtOnce = ctx.job.AllAtOnce
	if ctx.nodes, err = loadNodes(state, ctx.job, eval.ID); err != nil {
		return nil, err
	}
	ctx.scope = newJobScope(ctx.job)
	ctx.usage = newUsageIndex(state)
	ctx.jobAllocs = newJobAllocs(ctx.nodes, ctx.allocs)
	return ctx, nil
}

// jobWantsAllocs reports whether the job should have allocations: it is
// stored, not stopped, and not a periodic or parameterized parent, whose
// children run in its place. A periodic launch runs even if it kept its
// parent's schedule; a dispatched child that is periodic launches, as a
// periodic parent does.
func (ctx *planContext) jobWantsAllocs() bool {
	job := ctx.job
	if job == nil || job.Stop {
		return false
	}
	if job.IsPeriodic() && job.ParentID != "" && !job.Dispatched {
		return true
	}
	return !job.LaunchesChildren()
}

// placer returns the placer of a group of the current job.
func (ctx *planContext) placer(tg *structs.TaskGroup) *groupPlacer {
	p, ok := ctx.placers[tg.Name]
	if !ok {
		p = &groupPlacer{checker: newGroupChecker(ctx.job, tg, len(ctx.nodes.all))}
		ctx.placers[tg.Name] = p
	}
	return p
}

// allocsByGroup sorts the job's allocations by group.
func (ctx *planContext) allocsByGroup() map[string][]*structs.Allocation {
	groups := make(map[string][]*structs.Allocation)
	for _, alloc := range ctx.allocs {
		groups[alloc.TaskGroup] = append(groups[alloc.TaskGroup], alloc)
	}
	return groups
}

// stopAll stops every allocation of the job that still runs or may run:
// the job was stopped or purged, or is a periodic parent.
func (ctx *planContext) stopAll() {
	for _, alloc := range ctx.allocs {
		if isLive(alloc) {
			ctx.plan.AppendStoppedAlloc(alloc, allocNotNeeded, "")
		}
	}
	if ctx.job != nil {
		for _, tg := range ctx.job.TaskGroups {
			ctx.queued[tg.Name] = 0
		}
	}
}

// stopRemovedGroups stops the allocations of groups the job no longer has.
func (ctx *planContext) stopRemovedGroups(groups map[string][]*structs.Allocation) {
	names := make([]string, 0, len(groups))
	for name := range groups {
		if ctx.job.LookupTaskGroup(name) == nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		for _, alloc := range groups[name] {
			if isLive(alloc) {
				ctx.stop(alloc, allocNotNeeded, "")
			}
		}
	}
}

// isLive reports whether an allocation is meant to run and has not
// finished.
func isLive(alloc *structs.Allocation) bool {
	return alloc.DesiredStatus == structs.AllocDesiredStatusRun && !alloc.ClientTerminalStatus()
}

// stop adds a stop of alloc to the plan and frees what it held.
func (ctx *planContext) stop(alloc *structs.Allocation, desc, clientStatus string) *structs.Allocation {
	ctx.release(alloc)
	return ctx.plan.AppendStoppedAlloc(alloc, desc, clientStatus)
}

// release frees what a stored allocation holds, in the plan's view, and
// restore takes that back.
func (ctx *planContext) release(alloc *structs.Allocation) {
	ctx.usage.freeAlloc(alloc)
	ctx.jobAllocs.removeAlloc(alloc)
}

func (ctx *planContext) restore(alloc *structs.Allocation) {
	ctx.usage.unfreeAlloc(alloc)
	ctx.jobAllocs.addAlloc(alloc)
}

// newAlloc builds a placement of the group on node. Its Job is nil: it
// runs the plan's job.
func (ctx *planContext) newAlloc(p *groupPlacer, name string, node *structs.Node, metric *structs.AllocMetric) *structs.Allocation {
	tg := p.checker.tg
	total, perTask := groupAsk(tg)
	return &structs.Allocation{
		ID:            structs.GenerateUUID(),
		Namespace:     ctx.job.Namespace,
		EvalID:        ctx.eval.ID,
		Name:          name,
		NodeID:        node.ID,
		NodeName:      node.Name,
		JobID:         ctx.job.ID,
		TaskGroup:     tg.Name,
		Resources:     total,
		TaskResources: perTask,
		Networks:      p.networks[node.ID],
		Metrics:       metric,
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusPending,
		DeploymentID:  ctx.deploy.ID(tg, tg.Count),
	}
}

// commitPlacement adds a placement to the plan and takes what it holds.
func (ctx *planContext) commitPlacement(p *groupPlacer, alloc *structs.Allocation) {
	ctx.plan.AppendAlloc(alloc)
	ctx.usage.place(alloc.NodeID, p.checker.ask)
	ctx.usage.movePorts(alloc, 1)
	ctx.jobAllocs.add(alloc.NodeID, alloc.TaskGroup, 1)
}

// failPlacement records a placement of the group that found no node.
func (ctx *planContext) failPlacement(p *groupPlacer, metric *structs.AllocMetric) {
	name := p.checker.tg.Name
	ctx.queued[name]++
	p.failures++
	if existing := ctx.failedTG[name]; existing != nil {
		existing.CoalescedFailures++
		return
	}
	if metric == nil {
		metric = p.failed
	}
	if metric == nil {
		metric = newMetric(ctx.nodes)
	}
	ctx.failedTG[name] = metric
}
