package scheduler

import (
	"github.com/drover-io/drover/structs"
)

// DesiredUpdates reads a plan for job, made over the job's existing
// allocations, as counts per task group of what it would do: place, stop,
// migrate, update in place or replace (destructive update), and the live
// allocations it leaves alone. A nil plan (the scheduler had nothing to
// do) leaves everything alone. Every group of the job has an entry, and so
// does every group whose allocations the plan touches.
func DesiredUpdates(job *structs.Job, existing []*structs.Allocation, plan *structs.Plan) map[string]*structs.DesiredUpdates {
	out := make(map[string]*structs.DesiredUpdates)
	group := func(name string) *structs.DesiredUpdates {
		u, ok := out[name]
		if !ok {
			u = &structs.DesiredUpdates{}
			out[name] = u
		}
		return u
	}
	if job != nil {
		for _, tg := range job.TaskGroups {
			group(tg.Name)
		}
	}

	byID := make(map[string]*structs.Allocation, len(existing))
	for _, a := range existing {
		byID[a.ID] = a
	}
	touched := make(map[string]bool)
	if plan != nil {
		stops := make(map[string]*structs.Allocation)
		for _, allocs := range plan.NodeUpdate {
			for _, a := range allocs {
				touched[a.ID] = true
				stops[a.ID] = a
				if a.NextAllocation == "" {
					group(a.TaskGroup).Stop++ // a replaced one counts with its replacement
				}
			}
		}
		for _, allocs := range plan.NodeAllocation {
			for _, a := range allocs {
				if prev, ok := byID[a.ID]; ok {
					touched[a.ID] = true
					countUpdate(group(a.TaskGroup), prev, a)
					continue
				}
				countPlacement(group(a.TaskGroup), stops[a.PreviousAllocation])
			}
		}
	}
	for _, a := range existing {
		if !touched[a.ID] && isLive(a) {
			group(a.TaskGroup).Ignore++
		}
	}
	return out
}

// countUpdate counts a plan's update of a stored allocation: an in-place
// update to a new job version, or a failed allocation given its follow-up
// evaluation (a reschedule that waits).
func countUpdate(u *structs.DesiredUpdates, prev, next *structs.Allocation) {
	switch {
	case next.FollowupEvalID != "" && prev.FollowupEvalID == "":
		u.RescheduleLater++
	case next.Job != nil && !sameVersion(prev.Job, next.Job):
		u.InPlaceUpdate++
	}
}

// countPlacement counts a new allocation by what it replaces: the stop of
// its previous allocation in the same plan, or nothing.
func countPlacement(u *structs.DesiredUpdates, replaced *structs.Allocation) {
	if replaced == nil {
		u.Place++
		return
	}
	switch replaced.DesiredDescription {
	case allocUpdating:
		u.DestructiveUpdate++
	case allocMigrating:
		u.Migrate++
	case allocRescheduled:
		u.Place++
		u.RescheduleNow++
	default: // lost: stopped, and placed again
		u.Place++
		u.Stop++
	}
}

// TaskUpdateForcesNewAlloc reports whether moving allocations to the next
// version of a task replaces them (a destructive update) rather than
// updating them where they run. A task added or removed always does.
// Placement is not judged: an in-place update also needs the node to
// remain feasible.
func TaskUpdateForcesNewAlloc(old, next *structs.Task) bool {
	if old == nil || next == nil {
		return true
	}
	return taskNeedsNewAlloc(old, next)
}
