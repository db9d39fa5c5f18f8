// Package mock is a task driver for tests: its tasks are timers, not
// processes, configured with the keys of Nomad's mock driver (run_for,
// exit_code, start_block_for, kill_after, ...).
//
// All timing uses the time package and every goroutine and timer is made by
// the call that needs it, so the driver works inside testing/synctest
// bubbles.
package mock

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/drivers"
)

// DriverName is the mock driver's name, as in Nomad.
const DriverName = "mock_driver"

// handleVersion is the TaskHandle.Version this driver writes.
const handleVersion = 1

// ErrStoppedWhileStarting is StartTask's error when the task was stopped or
// destroyed during start_block_for.
var ErrStoppedWhileStarting = errors.New("task stopped while starting")

// Driver is the mock driver. Tasks live in memory only: a new Driver knows
// none of an earlier one's tasks.
type Driver struct {
	logger hclog.Logger
	tasks  drivers.TaskStore[*task]
}

var _ drivers.Driver = (*Driver)(nil)

// New returns a mock driver.
func New(logger hclog.Logger) *Driver {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Driver{logger: logger.Named(DriverName)}
}

func (d *Driver) Name() string { return DriverName }

func (d *Driver) Fingerprint(context.Context) *drivers.Fingerprint {
	return &drivers.Fingerprint{
		Attributes:        map[string]string{"driver." + DriverName: "1"},
		Detected:          true,
		Healthy:           true,
		HealthDescription: "healthy",
	}
}

func (d *Driver) StartTask(cfg *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	if cfg == nil || cfg.ID == "" {
		return nil, errors.New("start mock task: task config with an ID is required")
	}
	conf, err := parseConfig(cfg.Config)
	if err != nil {
		return nil, fmt.Errorf("task %q: invalid config: %w", cfg.Name, err)
	}

	t := newTask(cfg, conf)
	if err := d.tasks.Add(t.id, t); err != nil {
		return nil, err
	}
	defer t.starting.Done()
	if err := d.start(t, cfg); err != nil {
		// Finishing the task lets a concurrent StopTask or WaitTask return.
		t.finish(&drivers.ExitResult{Err: err}, time.Now())
		d.tasks.Remove(cfg.ID, t)
		return nil, err
	}

	h := &drivers.TaskHandle{
		Version:   handleVersion,
		Driver:    DriverName,
		Config:    cfg,
		State:     drivers.TaskStateRunning,
		StartedAt: t.startedAt,
	}
	if err := h.SetDriverState(newDriverState(t)); err != nil {
		return nil, err
	}
	d.logger.Debug("started task", "task_id", cfg.ID, "run_for", conf.RunFor)
	return h, nil
}

// start runs the task's start sequence: the start block, the configured
// start error, then the task itself.
func (d *Driver) start(t *task, cfg *drivers.TaskConfig) error {
	if !t.block() {
		return ErrStoppedWhileStarting
	}
	if t.conf.StartError != "" {
		return drivers.NewRecoverableError(errors.New(t.conf.StartError), t.conf.StartErrorRecoverable)
	}
	if err := t.start(cfg); err != nil {
		return fmt.Errorf("start mock task %q: %w", t.id, err)
	}
	return nil
}

func (d *Driver) WaitTask(ctx context.Context, taskID string) (<-chan *drivers.ExitResult, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	return t.exit.Wait(ctx), nil
}

func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	sig, err := drivers.StopSignal(signal)
	if err != nil {
		return fmt.Errorf("stop task %q: %w", taskID, err)
	}
	if t.currentState() == stateStarting {
		t.abortStart()
		t.starting.Wait()
	}
	t.stop(timeout, sig)
	return nil
}

// SignalTask records the signal. SIGKILL ends the task; other signals have
// no effect on it.
func (d *Driver) SignalTask(taskID string, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if t.conf.SignalError != "" {
		return errors.New(t.conf.SignalError)
	}
	sig, err := drivers.Signal(signal)
	if err != nil {
		return fmt.Errorf("signal task %q: %w", taskID, err)
	}
	t.recordSignal(signal)
	if sig == syscall.SIGKILL && t.currentState() == drivers.TaskStateRunning {
		t.terminate(sig)
	}
	return nil
}

// RecoverTask re-attaches to a task this driver still tracks. A task it
// does not know (its "process" died with an earlier driver) is recovered
// only if its driver state shows it has run its course by now; WaitTask then
// yields the result it was configured with.
func (d *Driver) RecoverTask(h *drivers.TaskHandle) error {
	if h == nil || h.Config == nil || h.Config.ID == "" {
		return errors.New("recover mock task: handle with a task config and ID is required")
	}
	id := h.Config.ID
	if d.tasks.Has(id) {
		return nil
	}
	var st driverState
	if err := h.GetDriverState(&st); err != nil {
		return fmt.Errorf("recover mock task %q: %w", id, err)
	}
	end, exited := st.exitedBy(time.Now())
	if !exited {
		return fmt.Errorf("recover mock task %q: task is not running in this driver", id)
	}
	return d.tasks.Add(id, newExitedTask(h.Config, st.StartedAt, end, st.result()))
}

func (d *Driver) InspectTask(taskID string) (*drivers.TaskStatus, error) {
	return drivers.StatusOf(&d.tasks, taskID)
}

func (d *Driver) DestroyTask(taskID string, force bool) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if t.currentState() == stateStarting {
		t.abortStart()
		t.starting.Wait()
	}
	if t.currentState() == drivers.TaskStateRunning {
		if !force {
			return fmt.Errorf("destroy task %q: task is still running", taskID)
		}
		t.terminate(syscall.SIGKILL)
		<-t.done
	}
	d.tasks.Remove(taskID, t)
	return nil
}

// Shutdown leaves every task running, as a real driver leaves its
// processes: the same Driver can recover them afterwards.
func (d *Driver) Shutdown() {}

// ReceivedSignals returns the names of the signals SignalTask delivered to
// the task, in order.
func (d *Driver) ReceivedSignals(taskID string) ([]string, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	return t.receivedSignals(), nil
}
