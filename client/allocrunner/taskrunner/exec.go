package taskrunner

import (
	"context"
	"errors"
	"fmt"

	"github.com/drover-io/drover/drivers"
)

// Exec is an interactive command's way into the running task: its
// driver and the run's task ID.
type Exec struct {
	streamer drivers.ExecStreamer
	taskID   string
	// ReachesHost says that the command would see the host's file
	// system (raw_exec): the caller needs alloc-node-exec too.
	ReachesHost bool
}

// Exec returns the way into the task's current run for an interactive
// command: ErrTaskNotRunning when it does not run, an error wrapping
// drivers.ErrExecNotSupported when its driver cannot run one.
func (tr *TaskRunner) Exec() (*Exec, error) {
	h := tr.currentHandle()
	if h == nil {
		return nil, ErrTaskNotRunning
	}
	drv, ok := tr.drivers.Lookup(h.Driver)
	if !ok {
		return nil, fmt.Errorf("task %q: driver %q is not available on this node", tr.taskName, h.Driver)
	}
	streamer, ok := drv.(drivers.ExecStreamer)
	if !ok {
		return nil, fmt.Errorf("task %q: driver %q: %w", tr.taskName, h.Driver, drivers.ErrExecNotSupported)
	}
	return &Exec{streamer: streamer, taskID: h.Config.ID, ReachesHost: streamer.ExecReachesHost()}, nil
}

// Run runs the command in the task; cancelling ctx kills it.
func (e *Exec) Run(ctx context.Context, opts *drivers.ExecOptions) (*drivers.ExitResult, error) {
	res, err := e.streamer.ExecTaskStreaming(ctx, e.taskID, opts)
	if errors.Is(err, drivers.ErrTaskNotFound) {
		return nil, ErrTaskNotRunning
	}
	return res, err
}
