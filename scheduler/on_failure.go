package scheduler

import (
	"cmp"
	"slices"
	"strings"

	"github.com/drover-io/drover/structs"
)

// A group's on_failure rules (structs.OnFailureDecide) turn how an
// allocation ended into an action. The decision is read again from the
// stored allocation at every evaluation, so nothing about it needs its
// own state: a failed allocation a rule answered with fail_job keeps the
// job stopped for as long as it is stored, and one answered with
// complete keeps its version from placing anything more.

// onFailure is the on_failure decision for a terminal allocation, read
// with the group of the job version it ran (the current job when the
// allocation does not carry its own).
func onFailure(alloc *structs.Allocation, job *structs.Job) structs.OnFailureDecision {
	if alloc.Job == nil {
		c := *alloc
		c.Job = job
		alloc = &c
	}
	return alloc.OnFailureDecision()
}

// policyEnd is a job version that an on_failure rule ended: fail_job
// stops what still runs, complete lets it finish; neither places more.
type policyEnd struct {
	action string
	reason string
}

// jobEndedByPolicy finds, among the allocations of the current job
// version, one whose on_failure decision ends the job: fail_job before
// complete, then the earliest created, so that every evaluation names the
// same one.
func (ctx *planContext) jobEndedByPolicy() (policyEnd, bool) {
	if ctx.job.Type != structs.JobTypeBatch {
		return policyEnd{}, false
	}
	var ends []policyEnd
	var created []uint64
	for _, alloc := range ctx.allocs {
		if !alloc.ClientTerminalStatus() || !sameVersion(alloc.Job, ctx.job) {
			continue
		}
		d := onFailure(alloc, ctx.job)
		if d.Action != structs.OnFailureFailJob && d.Action != structs.OnFailureComplete {
			continue
		}
		ends = append(ends, policyEnd{action: d.Action, reason: structs.OnFailureReason(alloc, d)})
		created = append(created, alloc.CreateIndex)
	}
	if len(ends) == 0 {
		return policyEnd{}, false
	}
	order := make([]int, len(ends))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if fa, fb := ends[a].action == structs.OnFailureFailJob, ends[b].action == structs.OnFailureFailJob; fa != fb {
			if fa {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(created[a], created[b]); c != 0 {
			return c
		}
		return strings.Compare(ends[a].reason, ends[b].reason)
	})
	return ends[order[0]], true
}

// endByPolicy plans a job version an on_failure rule ended: with
// fail_job every live allocation is stopped with the reason; with
// complete they run on. Nothing is placed or rescheduled either way.
func (ctx *planContext) endByPolicy(end policyEnd) {
	ctx.policyEnd = end.reason
	for _, tg := range ctx.job.TaskGroups {
		ctx.queued[tg.Name] = 0
	}
	if end.action != structs.OnFailureFailJob {
		return
	}
	for _, alloc := range ctx.allocs {
		if isLive(alloc) {
			ctx.stop(alloc, "job failed by "+end.reason, "")
		}
	}
}
