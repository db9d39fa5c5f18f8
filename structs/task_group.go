package structs

import "time"

// TaskGroup is a set of tasks placed together on one node.
type TaskGroup struct {
	Name             string
	Count            int
	Constraints      []*Constraint
	Affinities       []*Affinity
	Spreads          []*Spread
	Tasks            []*Task
	RestartPolicy    *RestartPolicy
	ReschedulePolicy *ReschedulePolicy
	// Update is the group's update block, the job's merged under it; nil
	// (or MaxParallel 0) replaces allocations all at once.
	Update        *UpdateStrategy `json:",omitempty"`
	Meta          map[string]string
	ShutdownDelay *time.Duration

	// MaxRunDuration bounds the group's run time, counted from the
	// allocation's CreateTime. Nil means unbounded. Read it through
	// Allocation.MaxRun, which says when it applies.
	MaxRunDuration *time.Duration
	// MaxRunOutcome is how an allocation a deadline stopped ends:
	// MaxRunOutcomeComplete (also when empty, so that the job reads back
	// as written) or MaxRunOutcomeFailed. Read it through
	// Allocation.MaxRunOutcome.
	MaxRunOutcome string
	// MinRunDuration is Drover's: the least run time worth starting an
	// allocation for. With it, a placement that the job's Deadline
	// would cut short still starts, its budget cut to the deadline, as
	// long as this much fits before it. Nil means an allocation starts
	// only when its whole budget ends by the deadline.
	MinRunDuration *time.Duration `json:",omitempty"`
	// MaxPendingDuration is Drover's: how long a placement the group
	// asked for may wait for a node, counted from the evaluation that
	// asked for it. Nil waits for ever. Canonicalisation fills it from
	// the job's (pending_timeout.go).
	MaxPendingDuration *time.Duration `json:",omitempty"`
	// MaxRunExtension is Drover's: how far beyond the group's
	// max_run_duration a task may move its own allocation's deadline
	// with its workload identity. Nil lets no task do so.
	// Canonicalisation fills it from the job's (max_run_extension.go).
	MaxRunExtension *time.Duration `json:",omitempty"`
	// OnFailure is Drover's on_failure block: rules, in order, that say
	// what a failed or timed-out allocation leads to (on_failure.go).
	OnFailure []*OnFailureRule `json:",omitempty"`
	// EphemeralDisk is the disk the group's allocations share; nil
	// reserves none (Nomad's default of 300 MB applies only where its
	// client fills it in).
	EphemeralDisk *EphemeralDisk
	// Networks is the group's network block (at most one): its mode and
	// the ports its tasks are given on the node.
	Networks []*NetworkResource `json:",omitempty"`
	// Volumes are the host volumes the group's tasks may mount, by name.
	Volumes map[string]*VolumeRequest `json:",omitempty"`
	// Services are the group's service blocks (service.go).
	Services []*Service `json:",omitempty"`
}

// EphemeralDisk is a group's ephemeral_disk: the scheduler reserves SizeMB
// on the node for each allocation, on top of its tasks' resources.
type EphemeralDisk struct {
	SizeMB int
}

// The bounds of an ephemeral_disk's size: Nomad's least, and a most (a
// pebibyte) that keeps every sum of sizes far from overflowing.
const (
	MinEphemeralDiskMB = 10
	MaxEphemeralDiskMB = 1 << 30
	// DefaultEphemeralDiskMB is the size of an ephemeral_disk block that
	// gives none, as Nomad's.
	DefaultEphemeralDiskMB = 300
)

// The outcomes of an allocation a deadline stopped.
const (
	// MaxRunOutcomeComplete: the allocation ends complete, as in Nomad;
	// it is not rescheduled.
	MaxRunOutcomeComplete = "complete"
	// MaxRunOutcomeFailed: the allocation ends failed, and the group's
	// reschedule policy applies.
	MaxRunOutcomeFailed = "failed"
)

// LookupTask returns the task with the given name, or nil.
func (tg *TaskGroup) LookupTask(name string) *Task {
	for _, t := range tg.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Lifecycle hooks.
const (
	TaskLifecycleHookPrestart  = "prestart"
	TaskLifecycleHookPoststart = "poststart"
	TaskLifecycleHookPoststop  = "poststop"
)

// Task is one unit of work run by a driver.
type Task struct {
	Name        string
	Driver      string
	User        string
	Lifecycle   *TaskLifecycle
	Config      map[string]any
	Constraints []*Constraint
	Affinities  []*Affinity
	Env         map[string]string
	Resources   *Resources
	// Networks is Nomad's deprecated task network, resources { network
	// }: canonicalisation moves its ports into the group's host network
	// (task_network.go), so that a registered job has none left. The
	// wire form has it in Resources.Networks, as Nomad's; the model's own
	// encoding leaves it out.
	Networks      []*NetworkResource `json:"-"`
	RestartPolicy *RestartPolicy
	Meta          map[string]string
	KillTimeout   time.Duration
	LogConfig     *LogConfig
	Artifacts     []*TaskArtifact
	Leader        bool
	ShutdownDelay time.Duration
	// KillSignal is the signal that asks the task to stop, before
	// KillTimeout runs out and it is killed. Empty means DefaultKillSignal
	// (SIGINT); canonicalisation leaves it empty so the job reads back as
	// written, and the client applies the default.
	KillSignal string

	// MaxRunDuration bounds the task's own run time, counted from when its
	// task runner began its first run (TaskState.RunnerStartedAt); the
	// group's max_run_duration still applies on top. Nil means unbounded.
	// Read it through Allocation.TaskMaxRun, which says when it applies.
	MaxRunDuration *time.Duration
	// MaxRunWarning asks the client to signal the task ahead of the first
	// deadline that applies to it (Allocation.TaskWarning). Nil means no
	// warning.
	MaxRunWarning *MaxRunWarning
	// Identity is the task's default workload identity block: how the
	// client hands the task the token the servers sign for it. Nil means
	// the defaults (WorkloadIdentity's zero value): no token is handed over.
	Identity *WorkloadIdentity `json:",omitempty"`
	// DispatchPayload writes the payload of the dispatch that created
	// the job to a file of the task's local/ directory. Nil: the task
	// gets no payload file.
	DispatchPayload *DispatchPayloadConfig `json:",omitempty"`
	// Templates are the task's template blocks (template.go).
	Templates []*Template `json:",omitempty"`
	// VolumeMounts place the group's volumes in the task.
	VolumeMounts []*VolumeMount `json:",omitempty"`
	// Services are the task's service blocks (service.go).
	Services []*Service `json:",omitempty"`
}

// MaxRunWarning is a task's max_run_warning block: Signal goes to the task
// Before ahead of its deadline, once, so that it can checkpoint.
type MaxRunWarning struct {
	Signal string
	Before time.Duration
}

// IsPrestart reports whether the task runs before the main tasks.
func (t *Task) IsPrestart() bool {
	return t.Lifecycle != nil && t.Lifecycle.Hook == TaskLifecycleHookPrestart
}

// IsPoststart reports whether the task runs once the main tasks are running.
func (t *Task) IsPoststart() bool {
	return t.Lifecycle != nil && t.Lifecycle.Hook == TaskLifecycleHookPoststart
}

// IsPoststop reports whether the task runs after the main tasks end.
func (t *Task) IsPoststop() bool {
	return t.Lifecycle != nil && t.Lifecycle.Hook == TaskLifecycleHookPoststop
}

// IsMain reports whether the task is one of the group's main tasks.
func (t *Task) IsMain() bool {
	return t.Lifecycle == nil
}

// TaskLifecycle places a task before, beside or after the main tasks.
type TaskLifecycle struct {
	Hook    string
	Sidecar bool
}

// Resources a task asks for.
type Resources struct {
	CPU         int
	Cores       int
	MemoryMB    int
	MemoryMaxMB int
	DiskMB      int
}

// Add adds o to r.
func (r *Resources) Add(o *Resources) {
	if o == nil {
		return
	}
	r.CPU += o.CPU
	r.Cores += o.Cores
	r.MemoryMB += o.MemoryMB
	r.MemoryMaxMB += o.MemoryMaxMB
	r.DiskMB += o.DiskMB
}

// TaskArtifact is a file fetched into the task directory before it starts.
type TaskArtifact struct {
	GetterSource   string
	GetterOptions  map[string]string
	GetterHeaders  map[string]string
	GetterMode     string
	GetterInsecure bool
	RelativeDest   string
	Chown          bool
}

// LogConfig bounds the log files a task leaves.
type LogConfig struct {
	MaxFiles      int
	MaxFileSizeMB int
	Disabled      bool
}
