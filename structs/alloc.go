package structs

import "time"

// Allocation client statuses.
const (
	AllocClientStatusPending  = "pending"
	AllocClientStatusRunning  = "running"
	AllocClientStatusComplete = "complete"
	AllocClientStatusFailed   = "failed"
	AllocClientStatusLost     = "lost"
	AllocClientStatusUnknown  = "unknown"
)

// Allocation desired statuses.
const (
	AllocDesiredStatusRun   = "run"
	AllocDesiredStatusStop  = "stop"
	AllocDesiredStatusEvict = "evict"
)

// Allocation is a task group of one job version placed on one node.
type Allocation struct {
	ID                 string
	Namespace          string
	EvalID             string
	Name               string
	NodeID             string
	NodeName           string
	JobID              string
	Job                *Job
	TaskGroup          string
	Resources          *Resources
	TaskResources      map[string]*Resources
	Metrics            *AllocMetric
	DesiredStatus      string
	DesiredDescription string
	DesiredTransition  DesiredTransition
	ClientStatus       string
	ClientDescription  string
	TaskStates         map[string]*TaskState
	FollowupEvalID     string
	PreviousAllocation string
	NextAllocation     string
	RescheduleTracker  *RescheduleTracker
	// PreemptedAllocations and PreemptedByAllocation are always empty:
	// Drover does not preempt. They are here for the wire shape.
	PreemptedAllocations  []string
	PreemptedByAllocation string
	// DeploymentID is the deployment that placed the allocation, empty
	// when none did; DeploymentStatus is its health there, which the
	// client reports.
	DeploymentID     string                 `json:",omitempty"`
	DeploymentStatus *AllocDeploymentStatus `json:",omitempty"`
	CreateIndex      uint64
	ModifyIndex      uint64
	AllocModifyIndex uint64
	// CreateTime and ModifyTime are Unix nanoseconds, set when the plan that
	// holds the allocation is applied.
	CreateTime int64
	ModifyTime int64

	// MaxRunOverride is a max_run_duration set for this allocation alone
	// (PUT /v1/allocation/:id/max-run-duration); nil when none is. Read it
	// through MaxRun, which says when it applies.
	MaxRunOverride *MaxRunOverride `json:",omitempty"`

	// Networks are the group's networks as the scheduler assigned them on
	// the node: the host's address and every port's host value. The wire
	// shows them as AllocatedResources.Shared.Networks and Ports.
	Networks []*NetworkResource `json:",omitempty"`

	// NetworkStatus is the allocation's address in its own network
	// namespace (modes bridge and cni/<name>), as its client set it up;
	// nil in host mode. The client reports it.
	NetworkStatus *AllocNetworkStatus `json:",omitempty"`
}

// MaxRunOverride is the budget of one allocation, changed while it runs:
// it replaces the group's max_run_duration on the same anchor, the
// allocation's CreateTime.
type MaxRunOverride struct {
	// Budget is the allocation's max_run_duration.
	Budget time.Duration
	// Replaces is the group's max_run_duration the change was made over,
	// zero when the group had none. A job version whose group has another
	// replaces the change in turn.
	Replaces time.Duration
}

// TerminalStatus reports whether the allocation is, or is meant to be, done.
func (a *Allocation) TerminalStatus() bool {
	switch a.DesiredStatus {
	case AllocDesiredStatusStop, AllocDesiredStatusEvict:
		return true
	}
	return a.ClientTerminalStatus()
}

// ClientTerminalStatus reports whether the client has finished the allocation.
func (a *Allocation) ClientTerminalStatus() bool {
	switch a.ClientStatus {
	case AllocClientStatusComplete, AllocClientStatusFailed, AllocClientStatusLost:
		return true
	}
	return false
}

// LookupTaskGroup returns the allocation's group in its job, or nil.
func (a *Allocation) LookupTaskGroup() *TaskGroup {
	if a.Job == nil {
		return nil
	}
	return a.Job.LookupTaskGroup(a.TaskGroup)
}

// MaxRunDeadline is the deadline of the allocation's max_run_duration (see
// MaxRun); ok is false when it has none.
func (a *Allocation) MaxRunDeadline() (deadline time.Time, ok bool) {
	m := a.MaxRun()
	return m.Deadline, m.HasDeadline()
}

// DesiredTransition asks the scheduler to move an allocation.
type DesiredTransition struct {
	Migrate         *bool
	Reschedule      *bool
	ForceReschedule *bool
	NoShutdownDelay *bool
}

// RescheduleTracker remembers the reschedule attempts that led to an allocation.
type RescheduleTracker struct {
	Events         []*RescheduleEvent
	LastReschedule string
}

// RescheduleEvent is one reschedule attempt.
type RescheduleEvent struct {
	RescheduleTime int64
	PrevAllocID    string
	PrevNodeID     string
	Delay          time.Duration
}

// AllocMetric explains how the scheduler placed, or failed to place, an
// allocation.
type AllocMetric struct {
	NodesEvaluated     int
	NodesFiltered      int
	NodesInPool        int
	NodePool           string
	NodesAvailable     map[string]int
	ClassFiltered      map[string]int
	ConstraintFiltered map[string]int
	NodesExhausted     int
	ClassExhausted     map[string]int
	DimensionExhausted map[string]int
	QuotaExhausted     []string
	Scores             map[string]float64
	AllocationTime     time.Duration
	CoalescedFailures  int
	// GivenUp is Drover's: why the group's placements were given up
	// rather than queued (a job max_run_duration spent, "cannot finish by
	// <deadline>"); empty for placements that found no node.
	GivenUp string `json:",omitempty"`
}

// Task states.
const (
	TaskStatePending = "pending"
	TaskStateRunning = "running"
	TaskStateDead    = "dead"
)

// TaskState is the client's view of one task of an allocation.
type TaskState struct {
	State       string
	Failed      bool
	Restarts    uint64
	LastRestart time.Time
	StartedAt   time.Time
	FinishedAt  time.Time
	Events      []*TaskEvent

	// RunnerStartedAt is when the task runner began the task's first run:
	// before its setup (directories, artifacts) and its driver's start (an
	// image pull), so later than the allocation's CreateTime by the time
	// the task waited for its turn in the group's lifecycle. Zero until
	// then; restarts do not move it. It anchors the task's own
	// max_run_duration.
	RunnerStartedAt time.Time `json:",omitzero"`
	// MaxRunExceeded reports that the client killed the task because it
	// outlived its own max_run_duration.
	MaxRunExceeded bool `json:",omitempty"`
	// MaxRunWarnedAt is when the client sent the task its max_run_warning
	// signal; zero while it has not. The warning goes once.
	MaxRunWarnedAt time.Time `json:",omitzero"`
}

// TaskEvent is one thing that happened to a task.
type TaskEvent struct {
	Type             string
	Time             int64
	DisplayMessage   string
	Details          map[string]string
	Message          string
	FailsTask        bool
	RestartReason    string
	SetupError       string
	DriverError      string
	DriverMessage    string
	ExitCode         int
	Signal           int
	KillReason       string
	KillTimeout      time.Duration
	KillError        string
	StartDelay       int64
	DownloadError    string
	ValidationError  string
	FailedSibling    string
	TaskSignalReason string
	TaskSignal       string
}
