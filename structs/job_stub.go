package structs

import (
	"maps"
	"slices"
)

// JobListStub is the summary of a job that GET /v1/jobs returns; it mirrors
// api.JobListStub.
type JobListStub struct {
	ID                string
	ParentID          string
	Name              string
	Namespace         string `json:",omitempty"`
	Datacenters       []string
	Type              string
	Priority          int
	Periodic          bool
	ParameterizedJob  bool
	Stop              bool
	Status            string
	StatusDescription string
	JobSummary        *JobSummary
	CreateIndex       uint64
	ModifyIndex       uint64
	JobModifyIndex    uint64
	SubmitTime        int64
	Meta              map[string]string `json:",omitempty"`
}

// Stub summarises the job with its allocation counts (nil when unknown). The
// stub holds copies, so it may outlive changes to the job; it shares the
// summary.
func (j *Job) Stub(summary *JobSummary) *JobListStub {
	return &JobListStub{
		ID:                j.ID,
		ParentID:          j.ParentID,
		Name:              j.Name,
		Namespace:         j.Namespace,
		Datacenters:       slices.Clone(j.Datacenters),
		Type:              j.Type,
		Priority:          j.Priority,
		Periodic:          j.IsPeriodic(),
		ParameterizedJob:  false, // Drover has no parameterized jobs
		Stop:              j.Stop,
		Status:            j.Status,
		StatusDescription: j.StatusDescription,
		JobSummary:        summary,
		CreateIndex:       j.CreateIndex,
		ModifyIndex:       j.ModifyIndex,
		JobModifyIndex:    j.JobModifyIndex,
		SubmitTime:        j.SubmitTime,
		Meta:              maps.Clone(j.Meta),
	}
}
