package structs

// DesiredUpdates counts what a plan does to the allocations of one group:
// the scheduler's account of a plan, which a dry run (job plan) reports.
type DesiredUpdates struct {
	// Ignore counts live allocations the plan leaves as they are.
	Ignore uint64
	// Place counts new allocations, replacements of lost and rescheduled
	// ones included.
	Place uint64
	// Migrate counts allocations moved off a draining node.
	Migrate uint64
	// Stop counts allocations stopped without a replacement, and lost
	// allocations.
	Stop uint64
	// InPlaceUpdate counts allocations moved to the new job version where
	// they run.
	InPlaceUpdate uint64
	// DestructiveUpdate counts allocations replaced by a new allocation of
	// the new job version.
	DestructiveUpdate uint64
	// Canary and Preemptions are always 0: Drover has no canaries and does
	// not preempt.
	Canary      uint64
	Preemptions uint64
	// RescheduleNow counts failed allocations replaced now (also counted in
	// Place), RescheduleLater those whose replacement waits for a delay.
	RescheduleNow   uint64
	RescheduleLater uint64
}

// Kinds of update a plan counts in TaskGroupDiff.Updates.
const (
	UpdateTypeIgnore            = "ignore"
	UpdateTypeCreate            = "create"
	UpdateTypeDestroy           = "destroy"
	UpdateTypeMigrate           = "migrate"
	UpdateTypeCanary            = "canary"
	UpdateTypeInPlaceUpdate     = "in-place update"
	UpdateTypeDestructiveUpdate = "create/destroy update"
)

// What a change forces, in TaskDiff.Annotations and FieldDiff.Annotations.
const (
	AnnotationForcesCreate            = "forces create"
	AnnotationForcesDestroy           = "forces destroy"
	AnnotationForcesInPlaceUpdate     = "forces in-place update"
	AnnotationForcesDestructiveUpdate = "forces create/destroy update"
)

// Updates returns the non-zero counts of u keyed by kind of update, as
// TaskGroupDiff.Updates has them; nil when there are none.
func (u *DesiredUpdates) Updates() map[string]uint64 {
	if u == nil {
		return nil
	}
	out := make(map[string]uint64)
	add := func(kind string, n uint64) {
		if n > 0 {
			out[kind] = n
		}
	}
	add(UpdateTypeIgnore, u.Ignore)
	add(UpdateTypeCreate, u.Place)
	add(UpdateTypeDestroy, u.Stop)
	add(UpdateTypeMigrate, u.Migrate)
	add(UpdateTypeCanary, u.Canary)
	add(UpdateTypeInPlaceUpdate, u.InPlaceUpdate)
	add(UpdateTypeDestructiveUpdate, u.DestructiveUpdate)
	if len(out) == 0 {
		return nil
	}
	return out
}
