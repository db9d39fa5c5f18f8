package scheduler

import (
	"slices"
	"strings"
)

// Placements that cannot run in time are given up, not queued: the job's
// own max_run_duration already spent, or a finish-by deadline the
// allocation's budget would end after (structs.Job.PlaceAt decides, once
// per group and evaluation). Time only moves on, so no capacity that
// appears later could place them: they leave no blocked evaluation, and
// the reason is on the group's failed-placement metric (GivenUp) and on
// the evaluation's StatusDescription.

// giveUpReason is why the group's placements are not started at the
// evaluation's time, empty when they may be.
func (ctx *planContext) giveUpReason(p *groupPlacer) string {
	if !p.placeAtDecided {
		p.placeAt = ctx.job.PlaceAt(p.checker.tg, ctx.now)
		p.placeAtDecided = true
	}
	return p.placeAt.GiveUp
}

// giveUpPlacement records a placement of the group given up for reason.
// It is not queued.
func (ctx *planContext) giveUpPlacement(p *groupPlacer, reason string) {
	name := p.checker.tg.Name
	p.failures++
	if existing := ctx.failedTG[name]; existing != nil {
		existing.CoalescedFailures++
		return
	}
	m := newMetric(ctx.nodes)
	m.GivenUp = reason
	ctx.failedTG[name] = m
}

// needsBlockedEval reports whether a failed placement may still be placed
// when capacity changes: one that found no node, not one given up.
func (ctx *planContext) needsBlockedEval() bool {
	for _, m := range ctx.failedTG {
		if m.GivenUp == "" {
			return true
		}
	}
	return false
}

// givenUpDescription is the evaluation's StatusDescription when it gave
// placements up: each distinct reason, in order; empty when none.
func (ctx *planContext) givenUpDescription() string {
	var reasons []string
	for _, m := range ctx.failedTG {
		if m.GivenUp != "" && !slices.Contains(reasons, m.GivenUp) {
			reasons = append(reasons, m.GivenUp)
		}
	}
	slices.Sort(reasons)
	return strings.Join(reasons, "; ")
}
