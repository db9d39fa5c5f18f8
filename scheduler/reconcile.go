package scheduler

import (
	"slices"
	"time"

	"github.com/drover-io/drover/structs"
)

// slotKind is the state of an allocation that holds one of a group's
// count slots (its name index).
type slotKind int

// In order of preference: when a group has more slots than its count,
// the least preferred of the highest indexes go first.
const (
	slotComplete        slotKind = iota // batch work that finished: never re-run
	slotRunning                         // live, current job version
	slotUpdate                          // live, older job version
	slotFailed                          // failed, not to be rescheduled
	slotFailedOlder                     // service work of an older version that failed, not to be rescheduled
	slotRescheduleLater                 // failed, to be rescheduled when its delay ends
	slotRescheduleNow                   // failed, to be rescheduled now
	slotMigrate                         // live, marked to migrate off its draining node
	slotLost                            // lost, or on a node that is down or gone
)

type slot struct {
	alloc *structs.Allocation
	index uint
	kind  slotKind
	// resched is the reschedule decision of a failed allocation.
	resched rescheduleDecision
}

// nodeCondition is what the node of a live allocation means for it. A
// draining node is usable: its allocations move only once the drainer
// marks them to migrate (service work), and the rest is left to finish or
// to be stopped by the drain's deadline.
type nodeCondition int

const (
	nodeUsable nodeCondition = iota
	nodeLost
)

// replaceKind says why an allocation is replaced, which decides what
// happens to it when the replacement cannot be placed.
type replaceKind int

const (
	replaceLost        replaceKind = iota // stopped as lost either way
	replaceReschedule                     // stays failed until a placement is found
	replaceMigrate                        // keeps running until a placement is found
	replaceDestructive                    // keeps running its old version until a placement is found
)

// replacement is an allocation to place in place of prev, under prev's
// name.
type replacement struct {
	prev    *structs.Allocation
	kind    replaceKind
	resched rescheduleDecision
}

// stopRequest is an allocation to stop.
type stopRequest struct {
	alloc        *structs.Allocation
	desc         string
	clientStatus string
}

// groupChanges is what a group needs to match its job: stops, updates of
// older versions, replacements, new placements and later reschedules.
type groupChanges struct {
	stops        []stopRequest
	updates      []*structs.Allocation
	replacements []replacement
	newNames     []string
	later        []laterReschedule
}

// reconcileInput is what the reconciliation of one group reads.
type reconcileInput struct {
	job    *structs.Job
	tg     *structs.TaskGroup
	allocs []*structs.Allocation
	now    time.Time
	evalID string
	node   func(nodeID string) nodeCondition
}

// reconcileGroup compares a group's allocations with its count. Batch
// allocations that completed keep their slot for good (unless they ran an
// older job version: a new version runs again); failed ones are
// rescheduled per the group's policy and otherwise keep their slot; lost
// ones are replaced at once.
func reconcileGroup(in reconcileInput) groupChanges {
	batch := in.job.Type == structs.JobTypeBatch
	var slots []slot
	for _, alloc := range in.allocs {
		if s, ok := classify(in, alloc, batch); ok {
			slots = append(slots, s)
		}
	}
	slices.SortStableFunc(slots, func(a, b slot) int {
		if a.index != b.index {
			return cmpInt(int64(a.index), int64(b.index))
		}
		return cmpInt(int64(a.kind), int64(b.kind))
	})

	var ch groupChanges
	count := max(in.tg.Count, 0)
	for len(slots) > count {
		ch.trim(slots[len(slots)-1])
		slots = slots[:len(slots)-1]
	}
	used := make(map[uint]bool, len(slots))
	for _, s := range slots {
		used[s.index] = true
		ch.keep(s)
	}
	for idx := uint(0); len(slots)+len(ch.newNames) < count; idx++ {
		if !used[idx] {
			ch.newNames = append(ch.newNames, structs.AllocName(in.job.ID, in.tg.Name, idx))
		}
	}
	return ch
}

// classify says which slot an allocation holds; ok is false when it holds
// none: it was stopped, already replaced, or finished in a way that frees
// its slot.
func classify(in reconcileInput, alloc *structs.Allocation, batch bool) (s slot, ok bool) {
	if alloc.DesiredStatus != structs.AllocDesiredStatusRun {
		return slot{}, false
	}
	current := sameVersion(alloc.Job, in.job)
	if batch && !current && alloc.ClientTerminalStatus() {
		return slot{}, false
	}
	s = slot{alloc: alloc, index: alloc.Index()}
	switch alloc.ClientStatus {
	case structs.AllocClientStatusComplete:
		if !batch {
			return slot{}, false // a service that exits is replaced
		}
		s.kind = slotComplete
		// A deadline may have ended it complete; on_failure can still
		// ask for it to run again.
		switch onFailure(alloc, in.job).Action {
		case structs.OnFailureRetry, structs.OnFailureRequeue:
			if alloc.NextAllocation != "" {
				return slot{}, false
			}
			s.resched = failedReschedule(in, alloc)
			if s.resched.when != rescheduleNever {
				s.kind = rescheduleSlot(s.resched)
			}
		}
	case structs.AllocClientStatusFailed:
		if alloc.NextAllocation != "" {
			return slot{}, false
		}
		s.resched = failedReschedule(in, alloc)
		s.kind = rescheduleSlot(s.resched)
		if s.kind == slotFailed && !batch && !current {
			// A new version of a service runs again where the old
			// one failed for good, as in Nomad.
			s.kind = slotFailedOlder
		}
		if s.resched.when == rescheduleNever && s.resched.done {
			s.kind = slotComplete
		}
	case structs.AllocClientStatusLost:
		s.kind = slotLost
	default:
		switch {
		case in.node(alloc.NodeID) == nodeLost:
			s.kind = slotLost
		case isTrue(alloc.DesiredTransition.Migrate):
			s.kind = slotMigrate
		case !current:
			s.kind = slotUpdate
		default:
			s.kind = slotRunning
		}
	}
	return s, true
}

// failedReschedule decides what becomes of an allocation that failed,
// or that a deadline ended: its group's on_failure rules first, then its
// reschedule policy.
func failedReschedule(in reconcileInput, alloc *structs.Allocation) rescheduleDecision {
	switch onFailure(alloc, in.job).Action {
	case structs.OnFailureRequeue:
		return rescheduleDecision{when: rescheduleNow, requeue: true}
	case structs.OnFailureIgnore, structs.OnFailureComplete:
		return rescheduleDecision{when: rescheduleNever, done: true}
	case structs.OnFailureFailJob:
		return rescheduleDecision{when: rescheduleNever}
	}
	return decideReschedule(alloc, in.tg.ReschedulePolicy, in.now, in.evalID)
}

// rescheduleSlot is the slot of a failed allocation with decision d.
func rescheduleSlot(d rescheduleDecision) slotKind {
	switch d.when {
	case rescheduleNow:
		return slotRescheduleNow
	case rescheduleLater:
		return slotRescheduleLater
	}
	return slotFailed
}

func isTrue(b *bool) bool { return b != nil && *b }

// trim gives up a slot beyond the group's count.
func (ch *groupChanges) trim(s slot) {
	switch s.kind {
	case slotRunning, slotUpdate, slotMigrate:
		ch.stops = append(ch.stops, stopRequest{alloc: s.alloc, desc: allocNotNeeded})
	case slotLost:
		ch.stops = append(ch.stops, stopRequest{alloc: s.alloc, desc: allocLost, clientStatus: lostStatus(s.alloc)})
	}
}

// keep decides what a slot within the group's count needs.
func (ch *groupChanges) keep(s slot) {
	switch s.kind {
	case slotUpdate:
		ch.updates = append(ch.updates, s.alloc)
	case slotMigrate:
		ch.replacements = append(ch.replacements, replacement{prev: s.alloc, kind: replaceMigrate})
	case slotFailedOlder:
		ch.replacements = append(ch.replacements, replacement{prev: s.alloc, kind: replaceDestructive})
	case slotLost:
		ch.replacements = append(ch.replacements, replacement{prev: s.alloc, kind: replaceLost})
	case slotRescheduleNow:
		ch.replacements = append(ch.replacements, replacement{prev: s.alloc, kind: replaceReschedule, resched: s.resched})
	case slotRescheduleLater:
		if s.alloc.FollowupEvalID == "" {
			ch.later = append(ch.later, laterReschedule{alloc: s.alloc, at: s.resched.at})
		}
	}
}

// lostStatus is the client status a plan gives an allocation it stops as
// lost: lost, unless the client already finished it.
func lostStatus(alloc *structs.Allocation) string {
	if alloc.ClientTerminalStatus() {
		return ""
	}
	return structs.AllocClientStatusLost
}
