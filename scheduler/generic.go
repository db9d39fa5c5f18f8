package scheduler

import (
	"github.com/drover-io/drover/structs"
)

// genericScheduler schedules batch and service jobs: each group keeps
// Count allocations wherever they fit best.
type genericScheduler struct {
	scheduler
}

// Process implements Scheduler.
func (g *genericScheduler) Process(eval *structs.Evaluation) error {
	return g.process(eval, g.buildGroup)
}

func (g *genericScheduler) buildGroup(ctx *planContext, tg *structs.TaskGroup, allocs []*structs.Allocation) error {
	ch := reconcileGroup(reconcileInput{
		job:    ctx.job,
		tg:     tg,
		allocs: allocs,
		now:    ctx.now,
		evalID: ctx.eval.ID,
		node:   ctx.nodeCondition,
	})
	ctx.queued[tg.Name] = 0
	p := ctx.placer(tg)
	for _, s := range ch.stops {
		ctx.stop(s.alloc, s.desc, s.clientStatus)
	}
	// A rolling update replaces at most what its deployment allows now;
	// the rest keep running their version until a later evaluation.
	allowed := ctx.deploy.Allowance(tg, allocs)
	for _, alloc := range ch.updates {
		if ctx.tryInPlace(alloc, p) {
			continue
		}
		if allowed == 0 {
			continue
		}
		allowed--
		ch.replacements = append(ch.replacements, replacement{prev: alloc, kind: replaceDestructive})
	}
	ctx.later = append(ctx.later, ch.later...)

	opts := selectOptions{
		limit:  p.checker.affinityLimit(scoreLimit(ctx.job.Type, len(ctx.nodes.candidates)), len(ctx.nodes.candidates)),
		spread: ctx.job.Type == structs.JobTypeService,
	}
	for _, r := range ch.replacements {
		if reason := ctx.giveUpReason(p); reason != "" {
			ctx.giveUpReplacement(p, r, reason)
			continue
		}
		if err := ctx.placeReplacement(p, r, opts); err != nil {
			return err
		}
	}
	// Placements given up for max_pending_duration are not made again.
	for _, name := range ctx.eval.PendingExpiredNames(tg.Name, ch.newNames) {
		if reason := ctx.giveUpReason(p); reason != "" {
			ctx.giveUpPlacement(p, reason)
			continue
		}
		opts.index, _ = structs.ParseAllocIndex(name)
		node, metric, err := ctx.selectNode(p, opts)
		if err != nil {
			return err
		}
		if node == nil {
			ctx.failPlacement(p, metric)
			continue
		}
		ctx.commitPlacement(p, ctx.newAlloc(p, name, node, metric))
	}
	return nil
}

// nodeCondition says what the node of a live allocation means for it.
func (ctx *planContext) nodeCondition(nodeID string) nodeCondition {
	node, _ := ctx.nodes.node(nodeID)
	if node == nil || node.Status == structs.NodeStatusDown {
		return nodeLost
	}
	return nodeUsable
}

// placeReplacement places an allocation in place of r.prev. What the
// previous allocation held is free while its replacement is chosen, so a
// destructive update may land on the same node. When no node is found, a
// lost allocation is still stopped as lost, and the others stay as they
// are.
func (ctx *planContext) placeReplacement(p *groupPlacer, r replacement, opts selectOptions) error {
	prev := r.prev
	ctx.release(prev)
	if r.kind == replaceReschedule {
		opts.avoid = previousNodes(prev)
	}
	opts.index = prev.Index()
	node, metric, err := ctx.selectReplacementNode(p, r, opts)
	if err != nil {
		return err
	}
	if node == nil {
		if r.kind == replaceLost {
			ctx.plan.AppendStoppedAlloc(prev, allocLost, lostStatus(prev))
		} else {
			ctx.restore(prev)
		}
		ctx.failPlacement(p, metric)
		return nil
	}
	alloc := ctx.newAlloc(p, prev.Name, node, metric)
	alloc.PreviousAllocation = prev.ID
	desc, clientStatus := allocUpdating, ""
	switch r.kind {
	case replaceLost:
		desc, clientStatus = allocLost, lostStatus(prev)
	case replaceMigrate:
		desc = allocMigrating
	case replaceReschedule:
		desc = allocRescheduled
		if r.resched.requeue {
			desc = allocRequeued
		}
		policy := p.checker.tg.ReschedulePolicy
		if r.resched.requeue || policy == nil {
			// A requeue keeps a bounded history: its own ceiling is
			// the job's budget, not the policy's attempts.
			policy = &structs.ReschedulePolicy{Unlimited: true}
		}
		alloc.RescheduleTracker = nextTracker(prev, policy, ctx.now, r.resched.delay)
	}
	stopped := ctx.plan.AppendStoppedAlloc(prev, desc, clientStatus)
	stopped.NextAllocation = alloc.ID
	ctx.commitPlacement(p, alloc)
	return nil
}

// giveUpReplacement gives up the placement that would replace r.prev:
// a lost allocation is still stopped as lost; any other stays as it is
// (a failed one is not rescheduled, an older version keeps running).
func (ctx *planContext) giveUpReplacement(p *groupPlacer, r replacement, reason string) {
	if r.kind == replaceLost {
		ctx.plan.AppendStoppedAlloc(r.prev, allocLost, lostStatus(r.prev))
	}
	ctx.giveUpPlacement(p, reason)
}

// selectReplacementNode selects a node for a replacement. Once the group
// has failed a placement, a destructive update still tries the node it
// runs on, where it may fit in the room it frees.
func (ctx *planContext) selectReplacementNode(p *groupPlacer, r replacement, opts selectOptions) (*structs.Node, *structs.AllocMetric, error) {
	if p.failed == nil || r.kind != replaceDestructive {
		return ctx.selectNode(p, opts)
	}
	node, pos := ctx.nodes.node(r.prev.NodeID)
	if node == nil || !node.Ready() || !ctx.scope.contains(node) {
		return nil, nil, nil
	}
	m := newMetric(ctx.nodes)
	m.NodesEvaluated = 1
	if _, ok, err := ctx.rankNode(p, pos, node, opts, m); err != nil || !ok {
		return nil, nil, err
	}
	return node, m, nil
}
