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
	Tasks            []*Task
	RestartPolicy    *RestartPolicy
	ReschedulePolicy *ReschedulePolicy
	Meta             map[string]string
	ShutdownDelay    *time.Duration
	// MaxRunDuration bounds the group's run time, counted from the
	// allocation's creation. Only batch and sysbatch jobs allow it.
	MaxRunDuration *time.Duration
}

// Task is one unit of work run by a driver.
type Task struct {
	Name          string
	Driver        string
	User          string
	Lifecycle     *TaskLifecycle
	Config        map[string]any
	Constraints   []*Constraint
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
