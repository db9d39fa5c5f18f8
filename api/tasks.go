package api

import "time"

// Lifecycle hooks a task may run in.
const (
	TaskLifecycleHookPrestart  = "prestart"
	TaskLifecycleHookPoststart = "poststart"
	TaskLifecycleHookPoststop  = "poststop"
)

// TaskGroup is a set of tasks placed together on one node.
type TaskGroup struct {
	Name             *string
	Count            *int
	Constraints      []*Constraint
	Affinities       []*Affinity
	Spreads          []*Spread
	Tasks            []*Task
	RestartPolicy    *RestartPolicy
	ReschedulePolicy *ReschedulePolicy
	// Update is the group's update block, merged over the job's.
	Update        *UpdateStrategy `json:",omitempty"`
	Meta          map[string]string
	ShutdownDelay *time.Duration
	// MaxRunDuration bounds the group's run time, counted from the
	// allocation's creation. Only batch and sysbatch jobs allow it.
	MaxRunDuration *time.Duration
	// MaxRunOutcome is a Drover addition: "complete" (the default) or
	// "failed", the client status of an allocation a deadline stopped.
	MaxRunOutcome *string `json:",omitempty"`
	// MinRunDuration is a Drover addition: with the job's Deadline, an
	// allocation whose budget would end after the deadline still starts,
	// cut to it, as long as this much run time fits.
	MinRunDuration *time.Duration `json:",omitempty"`
	// MaxPendingDuration is a Drover addition: how long a placement of
	// the group may wait for a node before it is given up.
	MaxPendingDuration *time.Duration `json:",omitempty"`
	// MaxRunExtension is a Drover addition: how far beyond
	// MaxRunDuration a task may move its own allocation's deadline with
	// its workload identity.
	MaxRunExtension *time.Duration `json:",omitempty"`
	// OnFailure is a Drover addition: the group's on_failure rules, in
	// order; the first that matches how an allocation failed or timed out
	// decides what it leads to.
	OnFailure []*OnFailureRule `json:",omitempty"`
	// EphemeralDisk is the disk the group's allocations share; the
	// scheduler reserves its size on the node.
	EphemeralDisk *EphemeralDisk `json:",omitempty"`
	// Networks is the group's network block: its mode and ports.
	Networks []*NetworkResource `json:",omitempty"`
	// Volumes are the volumes the group's tasks may mount, by name.
	Volumes map[string]*VolumeRequest `json:",omitempty"`
	// Services are the group's service blocks (services.go).
	Services []*Service `json:",omitempty"`
}

// OnFailureRule is a Drover addition: one rule of a group's on_failure
// block. It matches when every criterion it sets matches: an exit code of
// ExitCodes, a signal of Signals ("SIGKILL"), a reason of Reasons
// ("timeout", "oom", "driver_failure"). Action is "retry", "fail_job",
// "ignore", "complete" or "requeue".
type OnFailureRule struct {
	ExitCodes []int    `json:",omitempty"`
	Signals   []string `json:",omitempty"`
	Reasons   []string `json:",omitempty"`
	Action    string
}

// EphemeralDisk is a group's ephemeral_disk block. Drover reserves its
// size; Nomad's sticky and migrate, which carry a previous allocation's
// data over, it does not implement (api/unsupported's table).
type EphemeralDisk struct {
	SizeMB *int `hcl:"size,optional"`
}

// Task is one unit of work run by a driver.
type Task struct {
	Name          string
	Driver        string
	User          string
	Lifecycle     *TaskLifecycle
	Config        map[string]any
	Constraints   []*Constraint
	Affinities    []*Affinity
	Env           map[string]string
	Resources     *Resources
	RestartPolicy *RestartPolicy
	Meta          map[string]string
	KillTimeout   *time.Duration
	LogConfig     *LogConfig
	Artifacts     []*TaskArtifact
	Leader        bool
	ShutdownDelay time.Duration
	KillSignal    string
	// MaxRunDuration is a Drover addition: it bounds the task's own run
	// time, counted from when its task runner began its first run. Only
	// batch and sysbatch jobs allow it; the group's still applies.
	MaxRunDuration *time.Duration `json:",omitempty"`
	// MaxRunWarning is a Drover addition: a signal sent to the task ahead
	// of the first deadline that applies to it, once.
	MaxRunWarning *MaxRunWarning `json:",omitempty"`
	// Identity is the task's default workload identity: how the client
	// hands the task the token the servers sign for it.
	Identity *WorkloadIdentity `json:",omitempty"`
	// DispatchPayload writes the dispatch's payload to a file of the
	// task's local/ directory.
	DispatchPayload *DispatchPayloadConfig `json:",omitempty"`
	// Templates are the task's template blocks (template.go).
	Templates []*Template `json:",omitempty"`
	// VolumeMounts place the group's volumes in the task.
	VolumeMounts []*VolumeMount `json:",omitempty"`
	// Services are the task's service blocks (services.go).
	Services []*Service `json:",omitempty"`
}

// WorkloadIdentity is a task's identity block. Drover signs the default
// identity only: Name is empty or "default".
type WorkloadIdentity struct {
	Name string `json:",omitempty"`
	// Audience is the token's "aud"; empty means ["nomad.io"].
	Audience []string `json:",omitempty"`
	// Env puts the token in the task's environment as NOMAD_TOKEN.
	Env bool
	// File writes the token to secrets/nomad_token.
	File bool
	// TTL is how long a token is valid; zero means it does not expire.
	TTL time.Duration
}

// MaxRunWarning is a Drover addition: the task's max_run_warning block.
type MaxRunWarning struct {
	// Signal is sent to the task Before ahead of its deadline.
	Signal string
	Before *time.Duration
}

// TaskLifecycle places a task before, beside or after the main tasks.
type TaskLifecycle struct {
	Hook    string
	Sidecar bool
}

// RestartPolicy says how the client restarts a failed task in place.
type RestartPolicy struct {
	Interval *time.Duration
	Attempts *int
	Delay    *time.Duration
	Mode     *string
}

// Resources a task asks for.
type Resources struct {
	CPU         *int
	Cores       *int
	MemoryMB    *int
	MemoryMaxMB *int
	DiskMB      *int
	// Networks is Nomad's deprecated task network: its ports join the
	// group's host network when the job is registered.
	Networks []*NetworkResource `json:",omitempty"`
}

// TaskArtifact is a file fetched into the task directory before it starts.
type TaskArtifact struct {
	GetterSource   *string
	GetterOptions  map[string]string
	GetterHeaders  map[string]string
	GetterMode     *string
	GetterInsecure *bool
	RelativeDest   *string
	Chown          bool
}

// LogConfig bounds the log files a task leaves.
type LogConfig struct {
	MaxFiles      *int
	MaxFileSizeMB *int
	Disabled      *bool
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

	// RunnerStartedAt is a Drover addition: when the task runner began the
	// task's first run, before its setup and its driver's start; the
	// anchor of the task's own max_run_duration. Zero until then.
	RunnerStartedAt time.Time `json:",omitzero"`
	// MaxRunDeadline is a Drover addition: the earliest max_run_duration
	// deadline that applies to the task, its own or the allocation's, in
	// Unix nanoseconds; zero when none does (or the task's own has not
	// started counting and the allocation has none).
	MaxRunDeadline int64 `json:",omitempty"`
	// MaxRunDuration is a Drover addition: the budget whose deadline
	// MaxRunDeadline is, in nanoseconds; MaxRunScope says whose it is.
	MaxRunDuration time.Duration `json:",omitempty"`
	// MaxRunScope is a Drover addition: "task" when MaxRunDuration is the
	// task's own max_run_duration, "group" when it is the group's,
	// "allocation" when it is a budget changed for the allocation alone.
	MaxRunScope string `json:",omitempty"`
	// MaxRunExceeded is a Drover addition: the client killed the task
	// because it outlived its own max_run_duration.
	MaxRunExceeded bool `json:",omitempty"`
	// MaxRunWarningAt is a Drover addition: when the task's
	// max_run_warning is due, MaxRunDeadline less its lead time, in Unix
	// nanoseconds; zero without a warning or a deadline.
	MaxRunWarningAt int64 `json:",omitempty"`
	// MaxRunWarnedAt is a Drover addition: when the client sent the
	// warning; zero while it has not.
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
