package structs

import (
	"slices"
	"time"
)

// Job types.
const (
	JobTypeService  = "service"
	JobTypeBatch    = "batch"
	JobTypeSystem   = "system"
	JobTypeSysbatch = "sysbatch"
)

// Job statuses, derived from the job's allocations and evaluations.
const (
	JobStatusPending = "pending"
	JobStatusRunning = "running"
	JobStatusDead    = "dead"
)

// Defaults applied by canonicalisation.
const (
	DefaultRegion    = "global"
	DefaultNamespace = "default"
	DefaultNodePool  = "default"
	DefaultPriority  = 50
)

// Job is the unit of work a user submits: one or more task groups with a type
// that picks the scheduler.
type Job struct {
	Region      string
	Namespace   string
	ID          string
	Name        string
	Type        string
	Priority    int
	AllAtOnce   bool
	Datacenters []string
	NodePool    string
	Constraints []*Constraint
	Affinities  []*Affinity
	Spreads     []*Spread
	TaskGroups  []*TaskGroup
	Periodic    *PeriodicConfig
	// ParameterizedJob makes the job a parameterized one: it is never
	// placed itself, and each dispatch creates a child that runs
	// (parameterized.go).
	ParameterizedJob *ParameterizedJobConfig
	// Reschedule is the job-wide reschedule block. Canonicalisation merges it
	// into every group that has none; the groups' policies are what the
	// scheduler reads. It is kept so that the job reads back as submitted.
	Reschedule *ReschedulePolicy
	// Update is the job-wide update block as submitted; the groups carry
	// it merged with their own, which is what the scheduler reads.
	Update *UpdateStrategy `json:",omitempty"`
	Meta   map[string]string
	// MaxRunDuration is Drover's job-wide budget: one ceiling over every
	// group, attempt and reschedule of this job version, counted from its
	// SubmitTime (the registration of the version, the dispatch or the
	// periodic launch). Nil means none. Read it through
	// Allocation.MaxRun.
	MaxRunDuration *time.Duration `json:",omitempty"`
	// Deadline is Drover's finish-by: the instant by which the job's
	// allocations must be done (JobDeadline). Nil means none.
	Deadline *JobDeadline `json:",omitempty"`
	// MaxPendingDuration and MaxRunExtension are Drover's job-wide
	// defaults of the groups' fields of those names: canonicalisation
	// copies them into every group that has none. They are kept so that
	// the job reads back as submitted.
	MaxPendingDuration *time.Duration `json:",omitempty"`
	MaxRunExtension    *time.Duration `json:",omitempty"`
	// TTLAfterFinished is Drover's: how long after it finished a dead job
	// is garbage collected, in place of the server's job_gc_threshold;
	// zero leaves it to the threshold (gc.go).
	TTLAfterFinished time.Duration

	// Server-side state.
	Stop     bool
	ParentID string
	// Dispatched marks the child a dispatch of a parameterized job
	// created; Payload, DispatchIdempotencyToken and
	// DispatchMaxRunDuration are that dispatch's.
	Dispatched               bool
	Payload                  []byte
	DispatchIdempotencyToken string
	// DispatchMaxRunDuration is Drover's: the max_run_duration the
	// dispatch asked for every group of the child, which the groups
	// carry; nil when the dispatch asked none.
	DispatchMaxRunDuration *time.Duration
	Status                 string
	StatusDescription      string
	Stable                 bool
	Version                uint64
	SubmitTime             int64
	CreateIndex            uint64
	ModifyIndex            uint64
	JobModifyIndex         uint64
}

// LookupTaskGroup returns the group with the given name, or nil.
func (j *Job) LookupTaskGroup(name string) *TaskGroup {
	for _, tg := range j.TaskGroups {
		if tg.Name == name {
			return tg
		}
	}
	return nil
}

// IsPeriodic reports whether the job launches children on a schedule.
func (j *Job) IsPeriodic() bool {
	return j.Periodic != nil && j.Periodic.Enabled
}

// IsParameterized reports whether the job is a parameterized job that
// waits to be dispatched; its dispatched children are not.
func (j *Job) IsParameterized() bool {
	return j.ParameterizedJob != nil && !j.Dispatched
}

// LaunchesChildren reports whether the job is never placed itself: a
// periodic job or a parameterized one, whose children run in its place.
func (j *Job) LaunchesChildren() bool {
	return j.IsPeriodic() || j.IsParameterized()
}

// LaunchesPeriodically reports whether the periodic dispatcher launches
// the job's children. A periodic parameterized job launches nothing
// until it is dispatched: each dispatched child is then periodic with
// the dispatch's inputs, as in Nomad.
func (j *Job) LaunchesPeriodically() bool {
	return j.IsPeriodic() && !j.IsParameterized()
}

// AllowsMaxRunDuration reports whether jobs of this type may bound their
// groups' run time. Only work that is meant to finish may.
func AllowsMaxRunDuration(jobType string) bool {
	return jobType == JobTypeBatch || jobType == JobTypeSysbatch
}

// PeriodicConfig launches a job's children on a cron schedule.
type PeriodicConfig struct {
	Enabled         bool
	Spec            string
	Specs           []string
	SpecType        string
	ProhibitOverlap bool
	TimeZone        string
	// Overlap is Drover's: what a launch does while an earlier child
	// still runs (PeriodicOverlap*); empty means what ProhibitOverlap
	// says (gc.go).
	Overlap string
	// KeepLast is Drover's: how many dead children garbage collection
	// keeps; older dead ones go at its next pass. Zero leaves the
	// children to job_gc_threshold.
	KeepLast int
}

// PeriodicSpecCron is the only periodic spec type.
const PeriodicSpecCron = "cron"

// Constraint operands beyond the comparisons (=, ==, is, !=, not, <, <=, >,
// >=).
const (
	ConstraintDistinctHosts    = "distinct_hosts"
	ConstraintDistinctProperty = "distinct_property"
	ConstraintRegex            = "regexp"
	ConstraintVersion          = "version"
	ConstraintSemver           = "semver"
	ConstraintSetContains      = "set_contains"
	ConstraintSetContainsAll   = "set_contains_all"
	ConstraintSetContainsAny   = "set_contains_any"
	ConstraintAttrIsSet        = "is_set"
	ConstraintAttrIsNotSet     = "is_not_set"
)

// Constraint restricts the nodes a job, group or task may be placed on.
type Constraint struct {
	LTarget string
	RTarget string
	Operand string
}

// ReschedulePolicy says how the server replaces failed allocations.
type ReschedulePolicy struct {
	Attempts      int
	Interval      time.Duration
	Delay         time.Duration
	DelayFunction string
	MaxDelay      time.Duration
	Unlimited     bool
}

// Reschedule delay functions.
const (
	RescheduleDelayConstant    = "constant"
	RescheduleDelayExponential = "exponential"
	RescheduleDelayFibonacci   = "fibonacci"
)

// RestartPolicy modes.
const (
	RestartPolicyModeDelay = "delay"
	RestartPolicyModeFail  = "fail"
)

// RestartPolicy says how the client restarts a failed task in place.
type RestartPolicy struct {
	Attempts int
	Interval time.Duration
	Delay    time.Duration
	Mode     string
}

// Drivers returns the task drivers the job uses, each once, in the order
// its tasks name them.
func (j *Job) Drivers() []string {
	var out []string
	for _, tg := range j.TaskGroups {
		for _, task := range tg.Tasks {
			if !slices.Contains(out, task.Driver) {
				out = append(out, task.Driver)
			}
		}
	}
	return out
}
