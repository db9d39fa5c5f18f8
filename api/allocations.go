package api

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

// Allocation is a task group placed on a node.
type Allocation struct {
	ID                    string
	Namespace             string
	EvalID                string
	Name                  string
	NodeID                string
	NodeName              string
	JobID                 string
	Job                   *Job
	TaskGroup             string
	Resources             *Resources
	TaskResources         map[string]*Resources
	AllocatedResources    *AllocatedResources
	Metrics               *AllocationMetric
	DesiredStatus         string
	DesiredDescription    string
	DesiredTransition     DesiredTransition
	ClientStatus          string
	ClientDescription     string
	TaskStates            map[string]*TaskState
	FollowupEvalID        string
	PreviousAllocation    string
	NextAllocation        string
	RescheduleTracker     *RescheduleTracker
	PreemptedAllocations  []string
	PreemptedByAllocation string
	// DeploymentID is the deployment that placed the allocation, and
	// DeploymentStatus its health in it as the client reports it.
	DeploymentID     string                 `json:",omitempty"`
	DeploymentStatus *AllocDeploymentStatus `json:",omitempty"`
	CreateIndex      uint64
	ModifyIndex      uint64
	AllocModifyIndex uint64
	CreateTime       int64
	ModifyTime       int64

	// MaxRunDeadline is a Drover addition: CreateTime plus the group's
	// max_run_duration, in Unix nanoseconds; zero when the group has none.
	MaxRunDeadline int64 `json:",omitempty"`
	// MaxRunDuration is a Drover addition: the max_run_duration budget
	// that applies to the allocation (MaxRunDeadline is CreateTime plus
	// it), in nanoseconds; zero when none does.
	MaxRunDuration time.Duration `json:",omitempty"`
	// MaxRunExceeded is a Drover addition: the client stopped the
	// allocation because it outlived its max_run_duration (its
	// ClientDescription then says "allocation exceeded max_run_duration").
	MaxRunExceeded bool `json:",omitempty"`
	// MaxRunScope is a Drover addition: whose budget MaxRunDuration is,
	// "group" (the group's max_run_duration) or "allocation" (changed for
	// this allocation alone).
	MaxRunScope string `json:",omitempty"`
	// MaxRunOverride is a Drover addition: the budget changed for this
	// allocation (PUT /v1/allocation/:id/max-run-duration), as stored;
	// MaxRunScope says whether it is in force.
	MaxRunOverride *MaxRunOverride `json:",omitempty"`
	// NetworkStatus is the allocation's address in its own network
	// namespace (modes bridge and cni/<name>); nil in host mode.
	NetworkStatus *AllocNetworkStatus
}

// AllocNetworkStatus is an allocation's address in its network namespace,
// as its client set it up.
type AllocNetworkStatus struct {
	InterfaceName string
	Address       string
	AddressIPv6   string
	DNS           *DNSConfig
}

// MaxRunOverride is a Drover addition: a budget changed for one
// allocation, over the group's max_run_duration Replaces (zero: none),
// both in nanoseconds.
type MaxRunOverride struct {
	Budget   time.Duration
	Replaces time.Duration
}

// AllocationListStub is the summary of an allocation that list endpoints return.
type AllocationListStub struct {
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
	DeploymentStatus      *AllocDeploymentStatus `json:",omitempty"`
	CreateIndex           uint64
	ModifyIndex           uint64
	CreateTime            int64
	ModifyTime            int64

	// MaxRunDeadline, MaxRunDuration and MaxRunExceeded are Drover
	// additions; see Allocation's.
	MaxRunDeadline int64         `json:",omitempty"`
	MaxRunDuration time.Duration `json:",omitempty"`
	MaxRunExceeded bool          `json:",omitempty"`
	// AllocatedResources is there when the list was asked for it
	// (?resources=true), as in Nomad.
	AllocatedResources *AllocatedResources `json:",omitempty"`
	MaxRunScope        string              `json:",omitempty"`
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
	// Delay is how long the replacement waited. Nomad's servers send it
	// too, though Nomad's Go client does not read it.
	Delay time.Duration
}

// AllocationMetric explains how the scheduler placed, or failed to place, an
// allocation.
type AllocationMetric struct {
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
	// GivenUp is Drover's: why the placements were given up rather than
	// queued ("cannot finish by <instant>", "job max_run_duration
	// spent"); empty for placements that found no node.
	GivenUp string `json:",omitempty"`
}

// AllocStopResponse is the answer to POST /v1/allocation/:id/stop.
type AllocStopResponse struct {
	// EvalID is the evaluation that replaces the stopped allocation.
	EvalID string
	WriteMeta
}

// AllocationRestartRequest is the body of PUT /v1/client/allocation/:id/restart.
// An empty TaskName with AllTasks unset restarts the running tasks.
type AllocationRestartRequest struct {
	TaskName string
	AllTasks bool
}

// AllocSignalRequest is the body of PUT /v1/client/allocation/:id/signal. An
// empty Task signals every task of the allocation.
type AllocSignalRequest struct {
	Task   string
	Signal string
}

// AllocMaxRunDurationRequest is the body of PUT
// /v1/allocation/:id/max-run-duration, a Drover addition: the running
// allocation's new max_run_duration, counted from its CreateTime as
// before.
type AllocMaxRunDurationRequest struct {
	MaxRunDuration time.Duration
}

// AllocMaxRunDurationResponse is the answer to PUT
// /v1/allocation/:id/max-run-duration: the allocation's budget and
// deadline (Unix nanoseconds) as they now are.
type AllocMaxRunDurationResponse struct {
	MaxRunDuration time.Duration
	MaxRunDeadline int64
	WriteMeta
}
