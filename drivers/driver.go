// Package drivers defines how the client runs a task: the Driver interface
// that every task driver implements, the values that cross it, and a
// catalog of the drivers an agent offers.
package drivers

import (
	"context"
	"errors"
	"time"

	"github.com/drover-io/drover/structs"
)

// ErrTaskNotFound is returned for a task ID the driver does not track.
var ErrTaskNotFound = errors.New("task not found")

// Task states reported in TaskHandle.State and TaskStatus.State.
const (
	TaskStateRunning = "running"
	TaskStateExited  = "exited"
)

// DefaultStopSignal is the signal StopTask sends when none is given.
const DefaultStopSignal = "SIGINT"

// Driver runs tasks of one kind (a raw process, a container, ...).
//
// Every method is safe for concurrent use. Task IDs are chosen by the
// caller and are unique per task run.
type Driver interface {
	// Name is the value of a task's `driver` attribute that selects this
	// driver, e.g. "raw_exec".
	Name() string

	// Fingerprint reports whether the driver is usable on this node and the
	// node attributes it contributes, e.g. "driver.raw_exec" = "1".
	Fingerprint(ctx context.Context) *Fingerprint

	// StartTask starts the task and returns once its process has started
	// (or failed to). The handle must be persisted by the caller so that a
	// later agent process can RecoverTask it.
	StartTask(cfg *TaskConfig) (*TaskHandle, error)

	// WaitTask returns a channel that yields exactly one result when the
	// task exits, also for a recovered task. Cancelling ctx closes the
	// channel without a result; it does not affect the task.
	WaitTask(ctx context.Context, taskID string) (<-chan *ExitResult, error)

	// StopTask sends signal (DefaultStopSignal when empty), waits up to
	// timeout for the task to exit, then kills it. It returns once the task
	// has exited.
	StopTask(taskID string, timeout time.Duration, signal string) error

	// SignalTask sends signal to the task.
	SignalTask(taskID string, signal string) error

	// RecoverTask re-attaches to a task started by an earlier agent process
	// from its persisted handle. A task that exited meanwhile still yields
	// its real exit result from WaitTask.
	RecoverTask(handle *TaskHandle) error

	// InspectTask reports the task's current state.
	InspectTask(taskID string) (*TaskStatus, error)

	// DestroyTask releases the task's resources. A running task is an error
	// unless force is set, in which case it is killed first.
	DestroyTask(taskID string, force bool) error

	// Shutdown detaches from every task without stopping it: tasks outlive
	// the agent and are recovered by the next one.
	Shutdown()
}

// TaskConfig is everything a driver needs to start one task run.
type TaskConfig struct {
	// ID is unique per task run; drivers key their tasks by it.
	ID            string
	AllocID       string
	Name          string
	JobName       string
	TaskGroupName string
	Namespace     string
	Driver        string

	// Config is the task's `config` block, already interpolated.
	Config map[string]any
	// Env is the task's complete environment.
	Env  map[string]string
	User string

	// AllocDir is the allocation's shared directory (<alloc>/alloc).
	AllocDir string
	// TaskDir is the task's own directory (<alloc>/<task>), holding
	// local/, secrets/ and tmp/.
	TaskDir string

	// StdoutPath and StderrPath are base log paths; the files written are
	// <base>.0, <base>.1, ... rotated per LogMaxFiles and LogMaxFileSizeMB.
	StdoutPath       string
	StderrPath       string
	LogMaxFiles      int
	LogMaxFileSizeMB int

	Resources *structs.Resources
	// Ports are the allocation's ports, which a driver that maps ports
	// (docker's `ports`) publishes; DNS is the group network's dns block.
	Ports []structs.AllocatedPortMapping `json:",omitempty"`
	DNS   *structs.DNSConfig             `json:",omitempty"`
	// NetNSPath is the group's network namespace (modes bridge, none and
	// cni/<name>), which the task must be started in; empty in host mode.
	// raw_exec and exec start the task's supervisor in it.
	NetNSPath string `json:",omitempty"`
	// Mounts are the host volumes the task mounts; only a VolumeMounter
	// is given any.
	Mounts []*MountConfig `json:",omitempty"`

	// EmitEvent, when set, records a driver's message about the task's
	// progress (an image pull) as a task event. It is not persisted: a
	// recovered task has none.
	EmitEvent func(*TaskEvent) `json:"-"`
}

// StatsReporter is implemented by drivers that measure a task's resource
// use themselves, such as a container's cgroup as its engine reports it,
// rather than leave the client to read the task's processes.
type StatsReporter interface {
	TaskStats(ctx context.Context, taskID string) (*TaskUsage, error)
}

// TaskUsage is what a task uses at one moment. CPU times count from the
// task's start.
type TaskUsage struct {
	Timestamp        time.Time
	MemoryRSS        uint64
	MemoryCache      uint64
	MemorySwap       uint64
	MemoryUsage      uint64
	MemoryMaxUsage   uint64
	CPUUser          time.Duration
	CPUSystem        time.Duration
	ThrottledPeriods uint64
	ThrottledTime    time.Duration
}

// TaskEvent is a driver's message about a task, such as the progress of
// its image pull.
type TaskEvent struct {
	Message string
	Details map[string]string
}

// Emit records ev through cfg.EmitEvent, if the caller set one.
func (cfg *TaskConfig) Emit(ev *TaskEvent) {
	if cfg != nil && cfg.EmitEvent != nil {
		cfg.EmitEvent(ev)
	}
}

// StartAborter is implemented by drivers whose StartTask can take long,
// such as an image pull. AbortStart makes a StartTask of taskID that is
// under way return early with an error, leaving nothing behind; it does
// nothing to a task that has started. The agent stopping uses it: a task
// that never started is started again by the next agent.
type StartAborter interface {
	AbortStart(taskID string)
}

// ExitResult is how a task ended.
type ExitResult struct {
	ExitCode int
	// Signal is the number of the signal that terminated the task, or 0.
	Signal    int
	OOMKilled bool
	// Err is set when the driver could not learn how the task ended.
	Err error
	// ExitedAt is when the task's process exited, as the driver saw it
	// happen; zero when the driver only learnt of the exit later. It can be
	// well before the driver reports the exit (the agent was down then).
	ExitedAt time.Time
}

// Successful reports whether the task exited on its own with code 0.
func (r *ExitResult) Successful() bool {
	return r != nil && r.ExitCode == 0 && r.Signal == 0 && r.Err == nil
}

// TaskStatus is a snapshot of a task's state.
type TaskStatus struct {
	ID          string
	Name        string
	State       string
	StartedAt   time.Time
	CompletedAt time.Time
	// ExitResult is set once the task has exited.
	ExitResult       *ExitResult
	DriverAttributes map[string]string
}

// RunStatus is the status of the task cfg describes, started at
// startedAt: running until its result is set, exited (at completedAt)
// after.
func RunStatus(cfg *TaskConfig, startedAt, completedAt time.Time, result *ExitResult, attrs map[string]string) *TaskStatus {
	s := &TaskStatus{
		ID:               cfg.ID,
		Name:             cfg.Name,
		State:            TaskStateRunning,
		StartedAt:        startedAt,
		CompletedAt:      completedAt,
		ExitResult:       result,
		DriverAttributes: attrs,
	}
	if result != nil {
		s.State = TaskStateExited
	}
	return s
}

// Fingerprint is a driver's report about the node.
type Fingerprint struct {
	Attributes        map[string]string
	Detected          bool
	Healthy           bool
	HealthDescription string
}
