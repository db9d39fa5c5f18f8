package structs

import "maps"

// JobSummary counts a job's allocations by state, per task group. The state
// store derives it from the allocations and evaluations it holds.
type JobSummary struct {
	JobID       string
	Namespace   string
	Summary     map[string]TaskGroupSummary
	Children    *JobChildrenSummary
	CreateIndex uint64
	ModifyIndex uint64
}

// TaskGroupSummary counts one group's allocations by state.
type TaskGroupSummary struct {
	Queued   int
	Complete int
	Failed   int
	Running  int
	Starting int
	Lost     int
	Unknown  int
	// PendingExpired is Drover's: the placements given up because they
	// waited longer than the group's max_pending_duration, counted over
	// the evaluations of the job (Evaluation.PendingExpired).
	PendingExpired int `json:",omitempty"`
}

// JobChildrenSummary counts the children of a periodic job by status.
type JobChildrenSummary struct {
	Pending int64
	Running int64
	Dead    int64
}

// Copy returns a deep copy of the summary.
func (s *JobSummary) Copy() *JobSummary {
	if s == nil {
		return nil
	}
	c := *s
	c.Summary = maps.Clone(s.Summary)
	c.Children = clonePtr(s.Children)
	return &c
}
