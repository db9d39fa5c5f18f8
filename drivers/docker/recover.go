package docker

import (
	"errors"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

// RecoverTask re-attaches to the container named in the handle. A
// container that still runs is watched again and its output copied from
// where the last agent stopped; one that exited while the agent was down
// yields its real exit code and finish time, after the output it wrote
// meanwhile has reached the log files.
func (d *Driver) RecoverTask(h *drivers.TaskHandle) error {
	if h == nil || h.Config == nil || h.Config.ID == "" {
		return errors.New("recover docker task: handle with a task config and ID is required")
	}
	id := h.Config.ID
	if h.Driver != "" && h.Driver != DriverName {
		return fmt.Errorf("recover task %q: handle is for driver %q, not %q", id, h.Driver, DriverName)
	}
	if d.clientErr != nil {
		return fmt.Errorf("recover task %q: %w", id, d.clientErr)
	}
	if d.tasks.Has(id) {
		return nil
	}
	var st driverState
	if err := h.GetDriverState(&st); err != nil {
		return fmt.Errorf("recover task %q: %w", id, err)
	}
	if st.ContainerID == "" {
		return fmt.Errorf("recover task %q: driver state names no container", id)
	}
	ctx, cancel := engineCtx()
	defer cancel()
	insp, err := d.client.ContainerInspect(ctx, st.ContainerID, client.ContainerInspectOptions{})
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return fmt.Errorf("recover task %q: container %s no longer exists", id, shortID(st.ContainerID))
		}
		return fmt.Errorf("recover task %q: inspect container %s: %w", id, shortID(st.ContainerID), err)
	}
	// The process to hold is the one running now, if any.
	st.PID = 0
	if s := insp.Container.State; s != nil && s.Running {
		st.PID = s.Pid
	}

	t := newTask(h.Config)
	close(t.started)
	t.running(st)
	if err := d.tasks.Add(id, t); err != nil {
		return fmt.Errorf("recover task %q: %w", id, err)
	}
	if err := d.watch(t); err != nil {
		d.tasks.Remove(id, t)
		// A container the driver cannot watch (its task left a link
		// where its logs go, say) must not run on unsupervised: the
		// client counts the task as ended, and may start it again.
		d.killUnwatched(st.ContainerID)
		return fmt.Errorf("recover task %q: %w", id, err)
	}
	d.images.acquire(st.ImageID)
	d.logger.Debug("recovered task", "task_id", id, "container_id", st.ContainerID)
	return nil
}

// killUnwatched kills a container the driver gives up on; one that is
// not running any more is fine.
func (d *Driver) killUnwatched(id string) {
	ctx, cancel := engineCtx()
	defer cancel()
	_, err := d.client.ContainerKill(ctx, id, client.ContainerKillOptions{Signal: "SIGKILL"})
	if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
		d.logger.Warn("failed to kill a container the driver cannot watch", "container_id", id, "error", err)
	}
}
