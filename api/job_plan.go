package api

import "time"

// JobPlanRequest is the body of PUT /v1/job/:id/plan: the job to try, and
// whether to compare it with the registered one.
type JobPlanRequest struct {
	Job            *Job
	Diff           bool
	PolicyOverride bool `json:",omitempty"`
	WriteRequest
}

// JobPlanResponse is what the scheduler would do if the job were
// registered now.
type JobPlanResponse struct {
	// JobModifyIndex is the registered job's, 0 when there is none; pass it
	// to a register with EnforceIndex to submit exactly what was planned.
	JobModifyIndex uint64
	// CreatedEvals are the evaluations the scheduler would create, such as
	// a blocked one for allocations that do not fit yet.
	CreatedEvals []*Evaluation
	// Diff is how the job differs from the registered one, when asked for.
	Diff        *JobDiff
	Annotations *PlanAnnotations
	// FailedTGAllocs explains, per task group, the placements that failed.
	FailedTGAllocs map[string]*AllocationMetric
	// NextPeriodicLaunch is when a periodic job would next launch; the zero
	// time for other jobs.
	NextPeriodicLaunch time.Time
	// Warnings lists, one per line, what the server would accept but not
	// honour.
	Warnings string
}

// PlanAnnotations say, per task group, what the plan does to allocations.
type PlanAnnotations struct {
	DesiredTGUpdates map[string]*DesiredUpdates
	PreemptedAllocs  []*AllocationListStub
}

// DesiredUpdates counts what a plan does to the allocations of one task
// group.
type DesiredUpdates struct {
	Ignore            uint64
	Place             uint64
	Migrate           uint64
	Stop              uint64
	InPlaceUpdate     uint64
	DestructiveUpdate uint64
	Canary            uint64
	Preemptions       uint64
	RescheduleNow     uint64
	RescheduleLater   uint64
}
