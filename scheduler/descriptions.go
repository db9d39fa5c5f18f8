package scheduler

// The DesiredDescription of the allocations a plan stops.
const (
	allocNotNeeded   = "alloc not needed due to job update"
	allocUpdating    = "alloc is being updated due to job update"
	allocLost        = "alloc is lost since its node is down"
	allocMigrating   = "alloc is being migrated"
	allocRescheduled = "alloc was rescheduled because it failed"
	allocRequeued    = "alloc was requeued by its group's on_failure rules"
	allocNodeTainted = "alloc not needed as node is tainted"
)
