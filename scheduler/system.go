package scheduler

import (
	"slices"
	"time"

	"github.com/drover-io/drover/structs"
)

// systemScheduler schedules system and sysbatch jobs: one allocation of
// each group on every node that can run it, new nodes included. Sysbatch
// allocations that finished (complete or failed) are not run again on
// their node until the job changes.
type systemScheduler struct {
	scheduler
}

// Process implements Scheduler.
func (s *systemScheduler) Process(eval *structs.Evaluation) error {
	return s.process(eval, s.buildGroup)
}

func (s *systemScheduler) buildGroup(ctx *planContext, tg *structs.TaskGroup, allocs []*structs.Allocation) error {
	ctx.queued[tg.Name] = 0
	p := ctx.placer(tg)
	occupied, updates := ctx.reconcileNodes(p, allocs)
	failures := newMetric(ctx.nodes)
	name := structs.AllocName(ctx.job.ID, tg.Name, 0)

	// A rolling update replaces at most what its deployment allows now,
	// node by node; the others keep their version until a later
	// evaluation.
	allowed := ctx.deploy.Allowance(tg, allocs)
	for _, alloc := range updates {
		if ctx.tryInPlace(alloc, p) {
			continue
		}
		node, pos := ctx.nodes.node(alloc.NodeID)
		if !node.Ready() {
			continue // no new placements here; the old version keeps running
		}
		if allowed == 0 {
			continue
		}
		allowed--
		if err := ctx.placeOnNode(p, name, node, pos, alloc, failures); err != nil {
			return err
		}
	}
	for _, pos := range ctx.nodes.candidates {
		node := ctx.nodes.all[pos]
		if occupied[node.ID] {
			continue
		}
		if err := ctx.placeOnNode(p, name, node, pos, nil, failures); err != nil {
			return err
		}
	}
	ctx.deploy.SetDesired(tg.Name, len(occupied)+newPlacements(ctx.plan, tg.Name))
	return nil
}

// reconcileNodes stops the group's allocations that should no longer run
// where they are, and returns the nodes that hold an allocation of the
// group and the live allocations of an older job version.
func (ctx *planContext) reconcileNodes(p *groupPlacer, allocs []*structs.Allocation) (occupied map[string]bool, updates []*structs.Allocation) {
	sysbatch := ctx.job.Type == structs.JobTypeSysbatch
	// Current versions first, so that they are the ones kept when a node
	// has more than one.
	allocs = slices.Clone(allocs)
	slices.SortStableFunc(allocs, func(a, b *structs.Allocation) int {
		ac, bc := sameVersion(a.Job, ctx.job), sameVersion(b.Job, ctx.job)
		switch {
		case ac && !bc:
			return -1
		case bc && !ac:
			return 1
		}
		return cmpInt(int64(a.CreateIndex), int64(b.CreateIndex))
	})
	occupied = make(map[string]bool)
	for _, alloc := range allocs {
		if alloc.DesiredStatus != structs.AllocDesiredStatusRun {
			continue
		}
		current := sameVersion(alloc.Job, ctx.job)
		if alloc.ClientTerminalStatus() {
			finished := alloc.ClientStatus == structs.AllocClientStatusComplete ||
				alloc.ClientStatus == structs.AllocClientStatusFailed
			if sysbatch && current && finished {
				occupied[alloc.NodeID] = true
			}
			continue
		}
		node, pos := ctx.nodes.node(alloc.NodeID)
		switch {
		case node == nil || node.Status == structs.NodeStatusDown:
			ctx.stop(alloc, allocLost, structs.AllocClientStatusLost)
		case isTrue(alloc.DesiredTransition.Migrate):
			// A drain moves system work last, and stops it itself; the
			// scheduler only acts on what was marked to migrate.
			ctx.stop(alloc, allocNodeTainted, "")
		case occupied[node.ID]:
			ctx.stop(alloc, allocNotNeeded, "")
		case !ctx.scope.contains(node):
			ctx.stop(alloc, allocNotNeeded, "")
		default:
			if ok, _ := p.checker.static(pos, node); !ok {
				ctx.stop(alloc, allocNotNeeded, "")
				continue
			}
			occupied[node.ID] = true
			if !current {
				updates = append(updates, alloc)
			}
		}
	}
	return occupied, updates
}

// placeOnNode places the group on one node, replacing prev (an older
// version on that node) when given. A node the group cannot run on is
// skipped; a node without room is a failed placement, and prev then keeps
// running.
func (ctx *planContext) placeOnNode(p *groupPlacer, name string, node *structs.Node, pos int, prev *structs.Allocation, failures *structs.AllocMetric) error {
	start := time.Now()
	if prev != nil {
		ctx.release(prev)
	}
	m := newMetric(ctx.nodes)
	fits, feasible, err := ctx.fitsOn(p, pos, node, m)
	if err != nil {
		return err
	}
	mergeMetric(failures, m)
	if !fits {
		if prev != nil {
			ctx.restore(prev)
			if !feasible {
				// The node no longer suits the new version at all.
				ctx.stop(prev, allocNotNeeded, "")
				return nil
			}
		}
		if feasible {
			ctx.failSystemPlacement(p, failures)
		}
		return nil
	}
	if reason := ctx.giveUpReason(p); reason != "" {
		if prev != nil {
			ctx.restore(prev)
		}
		ctx.giveUpPlacement(p, reason)
		return nil
	}
	m.AllocationTime = time.Since(start)
	alloc := ctx.newAlloc(p, name, node, m)
	if prev != nil {
		alloc.PreviousAllocation = prev.ID
		stopped := ctx.plan.AppendStoppedAlloc(prev, allocUpdating, "")
		stopped.NextAllocation = alloc.ID
	}
	ctx.commitPlacement(p, alloc)
	return nil
}

// failSystemPlacement records a node that could run the group but has no
// room for it. The group's metric sums every node it looked at.
func (ctx *planContext) failSystemPlacement(p *groupPlacer, failures *structs.AllocMetric) {
	name := p.checker.tg.Name
	ctx.queued[name]++
	p.failures++
	failures.CoalescedFailures = p.failures - 1
	ctx.failedTG[name] = failures
}

// mergeMetric adds the counts of one node's metric to a group's.
func mergeMetric(into, m *structs.AllocMetric) {
	into.NodesEvaluated += m.NodesEvaluated
	into.NodesFiltered += m.NodesFiltered
	into.NodesExhausted += m.NodesExhausted
	into.ConstraintFiltered = addCounts(into.ConstraintFiltered, m.ConstraintFiltered)
	into.ClassFiltered = addCounts(into.ClassFiltered, m.ClassFiltered)
	into.DimensionExhausted = addCounts(into.DimensionExhausted, m.DimensionExhausted)
	into.ClassExhausted = addCounts(into.ClassExhausted, m.ClassExhausted)
}

func addCounts(into, from map[string]int) map[string]int {
	if len(from) == 0 {
		return into
	}
	if into == nil {
		into = make(map[string]int, len(from))
	}
	for k, v := range from {
		into[k] += v
	}
	return into
}

// newPlacements counts the plan's placements of the group on nodes that
// held none of it.
func newPlacements(plan *structs.Plan, group string) int {
	n := 0
	for _, allocs := range plan.NodeAllocation {
		for _, a := range allocs {
			if a.TaskGroup == group && a.CreateIndex == 0 && a.PreviousAllocation == "" {
				n++
			}
		}
	}
	return n
}
