package state

import (
	"encoding/json"
	"maps"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// StateDB stores client state. Getters return (nil, nil) for what was never
// stored. Implementations are safe for concurrent use.
type StateDB interface {
	// PutAllocation stores the allocation, replacing an earlier copy.
	PutAllocation(alloc *structs.Allocation) error
	// GetAllAllocations returns every stored allocation. An allocation that
	// cannot be decoded is reported in the map, keyed by its ID, so that one
	// corrupt entry does not hide the others.
	GetAllAllocations() ([]*structs.Allocation, map[string]error, error)
	// DeleteAllocationBucket removes everything stored for the allocation.
	DeleteAllocationBucket(allocID string) error

	PutAllocRunnerState(allocID string, s *AllocRunnerState) error
	GetAllocRunnerState(allocID string) (*AllocRunnerState, error)

	// PutTaskRunnerState stores the task's local state and task state; a
	// nil argument leaves the stored value as it is.
	PutTaskRunnerState(allocID, task string, local *TaskRunnerLocalState, ts *structs.TaskState) error
	GetTaskRunnerState(allocID, task string) (*TaskRunnerLocalState, *structs.TaskState, error)

	Close() error
}

// AllocRunnerState is what an alloc runner keeps about itself beyond its
// tasks' states.
type AllocRunnerState struct {
	// KillReason is why the runner is killing every task of the
	// allocation; empty while it is not. It is stored before the first
	// task is killed, so that an agent that restarts in the middle of the
	// kill finishes it, for the same reason, instead of running the tasks
	// on.
	KillReason KillReason `json:",omitempty"`
}

// UnmarshalJSON decodes runner state in every layout agents have written.
// Before kill reasons, an expired max_run_duration was recorded as
// {"MaxRunDurationExceeded":true} and nothing else was; that reads as
// KillReasonMaxRunDuration.
func (s *AllocRunnerState) UnmarshalJSON(data []byte) error {
	// current has AllocRunnerState's fields but not this method.
	type current AllocRunnerState
	var v struct {
		current
		MaxRunDurationExceeded bool
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = AllocRunnerState(v.current)
	if s.KillReason == "" && v.MaxRunDurationExceeded {
		s.KillReason = KillReasonMaxRunDuration
	}
	return nil
}

// Copy returns a copy of s.
func (s *AllocRunnerState) Copy() *AllocRunnerState {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// TaskRunnerLocalState is the task runner's private state: nothing of it is
// reported to the servers.
type TaskRunnerLocalState struct {
	// Hooks holds what each task hook keeps between runs, by hook name.
	Hooks map[string]*HookState
	// TaskHandle is the driver's handle of the task's current run, or nil
	// when no run is in progress.
	TaskHandle *drivers.TaskHandle
	// RestartCount and RestartWindowStart are the restart tracker's count of
	// restarts within the current restart-policy interval, so that a restart
	// of the agent does not hand the task a fresh allowance.
	RestartCount       int
	RestartWindowStart int64
}

// Copy returns a deep copy of s.
func (s *TaskRunnerLocalState) Copy() *TaskRunnerLocalState {
	if s == nil {
		return nil
	}
	c := *s
	c.TaskHandle = s.TaskHandle.Copy()
	if s.Hooks != nil {
		c.Hooks = make(map[string]*HookState, len(s.Hooks))
		for name, h := range s.Hooks {
			c.Hooks[name] = h.Copy()
		}
	}
	return &c
}

// HookState is what one task hook keeps between runs of its task.
type HookState struct {
	// PrestartDone means the hook's work is done for good, e.g. the
	// artifacts are downloaded, and the hook is skipped on later runs.
	PrestartDone bool
	Data         map[string]string
}

// Copy returns a deep copy of h.
func (h *HookState) Copy() *HookState {
	if h == nil {
		return nil
	}
	c := *h
	c.Data = maps.Clone(h.Data)
	return &c
}
