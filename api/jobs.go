package api

import "time"

// Job types.
const (
	JobTypeService  = "service"
	JobTypeBatch    = "batch"
	JobTypeSystem   = "system"
	JobTypeSysbatch = "sysbatch"
)

// Job is a job specification as a user submits it and as the server returns it.
type Job struct {
	Region      *string
	Namespace   *string
	ID          *string
	Name        *string
	Type        *string
	Priority    *int
	AllAtOnce   *bool
	Datacenters []string
	NodePool    *string
	Constraints []*Constraint
	Affinities  []*Affinity
	Spreads     []*Spread
	TaskGroups  []*TaskGroup
	Periodic    *PeriodicConfig
	Reschedule  *ReschedulePolicy
	// Update is the job-wide update block; each group's own is merged
	// over it.
	Update *UpdateStrategy `json:",omitempty"`
	Meta   map[string]string
	// MaxPendingDuration and MaxRunExtension are Drover additions: the
	// default of the groups' fields of those names.
	MaxPendingDuration *time.Duration `json:",omitempty"`
	MaxRunExtension    *time.Duration `json:",omitempty"`
	// TTLAfterFinished is Drover's: how long after it finished a dead job
	// is garbage collected, in place of the servers' job_gc_threshold.
	TTLAfterFinished *time.Duration `json:",omitempty"`

	// ParameterizedJob makes the job wait to be dispatched (the
	// parameterized block).
	ParameterizedJob *ParameterizedJobConfig `json:",omitempty"`
	// Payload is the input of the dispatch that created the job.
	Payload []byte `json:",omitempty"`
	// MaxRunDuration is Drover's job-wide budget: one ceiling over every
	// group, attempt and reschedule of the job version, counted from its
	// SubmitTime (registration, dispatch or periodic launch).
	MaxRunDuration *time.Duration `json:",omitempty"`
	// Deadline is Drover's finish-by: the allocations of the job must be
	// done by it; the scheduler starts none that could not be.
	Deadline *JobDeadline `json:",omitempty"`

	// Fields the server sets.
	Stop       *bool
	ParentID   *string
	Dispatched bool
	// DispatchIdempotencyToken is the token of the dispatch that created
	// the job.
	DispatchIdempotencyToken *string `json:",omitempty"`
	// DispatchMaxRunDuration is Drover's: the max_run_duration the
	// dispatch that created the job gave its groups.
	DispatchMaxRunDuration *time.Duration `json:",omitempty"`
	Status                 *string
	StatusDescription      *string
	Stable                 *bool
	Version                *uint64
	SubmitTime             *int64
	CreateIndex            *uint64
	ModifyIndex            *uint64
	JobModifyIndex         *uint64
}

// IsPeriodic reports whether the job launches children on a schedule.
func (j *Job) IsPeriodic() bool {
	return j != nil && j.Periodic != nil && (j.Periodic.Enabled == nil || *j.Periodic.Enabled)
}

// IsParameterized reports whether the job waits to be dispatched.
func (j *Job) IsParameterized() bool {
	return j != nil && j.ParameterizedJob != nil && !j.Dispatched
}

// PeriodicConfig launches a job on a cron schedule.
type PeriodicConfig struct {
	Enabled         *bool
	Spec            *string
	Specs           []string
	SpecType        *string
	ProhibitOverlap *bool
	TimeZone        *string
	// Overlap is Drover's: "skip", "allow" or "replace", what a launch
	// does while an earlier child runs; unset follows ProhibitOverlap.
	Overlap *string `json:",omitempty"`
	// KeepLast is Drover's: how many dead children garbage collection
	// keeps; older ones go at its next pass.
	KeepLast *int `json:",omitempty"`
}

// ReschedulePolicy says how the server replaces failed allocations.
type ReschedulePolicy struct {
	Attempts      *int
	Interval      *time.Duration
	Delay         *time.Duration
	DelayFunction *string
	MaxDelay      *time.Duration
	Unlimited     *bool
}

// Constraint restricts the nodes a job, group or task may be placed on.
type Constraint struct {
	LTarget string
	RTarget string
	Operand string
}

// Affinity makes the scheduler prefer (a positive Weight) or avoid (a
// negative one) the nodes that match it, without filtering any out.
// Weight is -100..100 and not zero; nil means 50.
type Affinity struct {
	LTarget string
	RTarget string
	Operand string
	Weight  *int8
}

// Spread asks the scheduler to spread a group's allocations over the
// values of a node attribute: evenly, or as SpreadTarget's percentages
// say. Weight is 1..100; nil means 50.
type Spread struct {
	Attribute    string
	Weight       *int8
	SpreadTarget []*SpreadTarget
}

// SpreadTarget is the share of a group's allocations a spread wants on the
// nodes whose attribute is Value.
type SpreadTarget struct {
	Value   string
	Percent uint8
}

// JobListStub is the summary of a job that GET /v1/jobs returns.
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

// JobSummary counts a job's allocations by state, per task group.
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
	// PendingExpired is a Drover addition: the placements given up
	// because they waited longer than the group's max_pending_duration.
	PendingExpired int `json:",omitempty"`
}

// JobChildrenSummary counts the children of a periodic or parameterized
// job by status.
type JobChildrenSummary struct {
	Pending int64
	Running int64
	Dead    int64
}

// JobRegisterRequest is the body of PUT /v1/jobs.
type JobRegisterRequest struct {
	Job            *Job
	EnforceIndex   bool   `json:",omitempty"`
	JobModifyIndex uint64 `json:",omitempty"`
	PolicyOverride bool   `json:",omitempty"`
	PreserveCounts bool   `json:",omitempty"`
	EvalPriority   int    `json:",omitempty"`
	WriteRequest
}

// JobRegisterResponse is the answer to PUT /v1/jobs.
type JobRegisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	// Warnings lists, one per line, what the server accepted but will not
	// honour (fields Drover does not implement) or changed.
	Warnings string
	QueryMeta
}

// JobDeregisterResponse is the answer to DELETE /v1/job/:id.
type JobDeregisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	QueryMeta
}

// JobValidateRequest is the body of PUT /v1/validate/job.
type JobValidateRequest struct {
	Job *Job
	WriteRequest
}

// JobValidateResponse is the answer to PUT /v1/validate/job.
type JobValidateResponse struct {
	DriverConfigValidated bool
	ValidationErrors      []string
	Error                 string
	Warnings              string
}

// JobsParseRequest is the body of POST /v1/jobs/parse.
type JobsParseRequest struct {
	JobHCL       string
	Variables    string
	Canonicalize bool
}

// JobVersionsResponse is the answer to GET /v1/job/:id/versions.
type JobVersionsResponse struct {
	Versions []*Job
	// Diffs, when asked for, holds how each version differs from the one
	// before it.
	Diffs []*JobDiff
	QueryMeta
}

// WriteRequest carries the scope of a write.
type WriteRequest struct {
	Region    string
	Namespace string
	SecretID  string
}

// JobDeadline is Drover's finish-by of a job: an instant (At, Unix
// nanoseconds), or for a periodic or parameterized job a time after each
// launch (AfterLaunch, nanoseconds), which the launched child carries as
// an instant. One of the two is set.
type JobDeadline struct {
	At          int64         `json:",omitempty"`
	AfterLaunch time.Duration `json:",omitempty"`
}
