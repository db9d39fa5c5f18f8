package structs

// AllocListStub is the summary of an allocation that list endpoints return;
// it mirrors api.AllocationListStub.
type AllocListStub struct {
	ID                    string
	EvalID                string
	Name                  string
	Namespace             string
	NodeID                string
	NodeName              string
	JobID                 string
	JobType               string
	JobVersion            uint64
	TaskGroup             string
	DesiredStatus         string
	DesiredDescription    string
	ClientStatus          string
	ClientDescription     string
	TaskStates            map[string]*TaskState
	FollowupEvalID        string
	NextAllocation        string
	RescheduleTracker     *RescheduleTracker
	PreemptedAllocations  []string
	PreemptedByAllocation string
	CreateIndex           uint64
	ModifyIndex           uint64
	CreateTime            int64
	ModifyTime            int64

	// MaxRunDeadline is a Drover addition: CreateTime plus the group's
	// max_run_duration, in Unix nanoseconds; zero when the group has none.
	// Unlike Allocation's, it is stored, as a stub is a snapshot.
	MaxRunDeadline int64 `json:",omitempty"`
}

// Stub summarises the allocation. The stub shares TaskStates and
// RescheduleTracker with the allocation: treat it as read-only, like
// everything the state store hands out.
func (a *Allocation) Stub() *AllocListStub {
	s := &AllocListStub{
		ID:                    a.ID,
		EvalID:                a.EvalID,
		Name:                  a.Name,
		Namespace:             a.Namespace,
		NodeID:                a.NodeID,
		NodeName:              a.NodeName,
		JobID:                 a.JobID,
		TaskGroup:             a.TaskGroup,
		DesiredStatus:         a.DesiredStatus,
		DesiredDescription:    a.DesiredDescription,
		ClientStatus:          a.ClientStatus,
		ClientDescription:     a.ClientDescription,
		TaskStates:            a.TaskStates,
		FollowupEvalID:        a.FollowupEvalID,
		NextAllocation:        a.NextAllocation,
		RescheduleTracker:     a.RescheduleTracker,
		PreemptedAllocations:  a.PreemptedAllocations,
		PreemptedByAllocation: a.PreemptedByAllocation,
		CreateIndex:           a.CreateIndex,
		ModifyIndex:           a.ModifyIndex,
		CreateTime:            a.CreateTime,
		ModifyTime:            a.ModifyTime,
		MaxRunDeadline:        a.maxRunDeadlineUnixNano(),
	}
	if a.Job != nil {
		s.JobType = a.Job.Type
		s.JobVersion = a.Job.Version
	}
	return s
}
