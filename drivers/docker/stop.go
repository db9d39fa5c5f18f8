package docker

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

func (d *Driver) WaitTask(ctx context.Context, taskID string) (<-chan *drivers.ExitResult, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	return drivers.WaitExit(ctx, t.done, func() *drivers.ExitResult {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.result
	}), nil
}

// StopTask sends the signal to the container, and SIGKILL once timeout
// has passed, as `docker stop --signal` does. A task still starting
// (pulling its image) is abandoned and never starts.
func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	sig, err := drivers.StopSignal(signal)
	if err != nil {
		return fmt.Errorf("stop task %q: %w", taskID, err)
	}
	if d.abandonStart(t) {
		return nil
	}
	if t.hasExited() {
		t.waitDone(logDrainTimeout)
		return nil
	}
	if err := d.kill(t, sig); err != nil {
		return fmt.Errorf("stop task %q: %w", taskID, err)
	}
	if t.waitDone(timeout) {
		return nil
	}
	d.logger.Debug("task outlived its kill timeout, killing it", "task_id", taskID, "timeout", timeout)
	return d.killNow(t)
}

// abandonStart stops a start under way and waits for StartTask to
// return. It reports whether the task never started.
func (d *Driver) abandonStart(t *task) bool {
	if t.currentPhase() != phaseStarting {
		return false
	}
	t.abort(ErrStoppedWhileStarting)
	<-t.started
	// The start may have won the race.
	return t.currentPhase() == phaseStarting
}

// kill sends sig to the container's first process: straight to it when
// the driver holds it, else through the engine.
func (d *Driver) kill(t *task, sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		t.sendingKill()
	}
	t.mu.Lock()
	proc := t.proc
	t.mu.Unlock()
	if proc != nil {
		err := proc.signal(sig)
		if err == nil {
			return nil
		}
		d.logger.Debug("signal through the pidfd failed, asking the engine", "task_id", t.cfg.ID, "error", err)
	}
	ctx, cancel := engineCtx()
	defer cancel()
	_, err := d.client.ContainerKill(ctx, t.containerID(), client.ContainerKillOptions{Signal: strconv.Itoa(int(sig))})
	if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
		// Conflict: the container is not running any more.
		return fmt.Errorf("signal container %s: %w", shortID(t.containerID()), err)
	}
	return nil
}

// killNow kills the container and waits for it to stop.
func (d *Driver) killNow(t *task) error {
	if err := d.kill(t, syscall.SIGKILL); err != nil {
		return err
	}
	if !t.waitDone(killWait) {
		return fmt.Errorf("kill task %q: still running %s after SIGKILL", t.cfg.ID, killWait)
	}
	return nil
}

func (d *Driver) SignalTask(taskID string, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	sig, err := drivers.Signal(signal)
	if err != nil {
		return fmt.Errorf("signal task %q: %w", taskID, err)
	}
	if t.currentPhase() != phaseRunning || t.hasExited() {
		return fmt.Errorf("signal task %q: task is not running", taskID)
	}
	if err := d.kill(t, sig); err != nil {
		return fmt.Errorf("signal task %q: %w", taskID, err)
	}
	return nil
}

func (d *Driver) InspectTask(taskID string) (*drivers.TaskStatus, error) {
	return drivers.StatusOf(&d.tasks, taskID)
}

// DestroyTask forgets the task and removes its container (unless the
// plugin's gc keeps containers); force kills it first if it still runs.
// An image no task uses any more is removed after the GC delay.
func (d *Driver) DestroyTask(taskID string, force bool) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if d.abandonStart(t) {
		d.tasks.Remove(taskID, t)
		return nil
	}
	if !t.hasExited() {
		if !force {
			return fmt.Errorf("destroy task %q: task is still running", taskID)
		}
		if err := d.killNow(t); err != nil {
			return fmt.Errorf("destroy task %q: %w", taskID, err)
		}
	}
	t.detach()
	d.tasks.Remove(taskID, t)

	t.mu.Lock()
	st, released := t.state, t.released
	t.released = true
	t.mu.Unlock()
	if released {
		return nil
	}
	if d.cfg.GC.Container {
		d.removeContainer(st.ContainerID)
	}
	removePosition(t.cfg, t.stateDir, st.ContainerID)
	d.images.release(st.ImageID)
	return nil
}
