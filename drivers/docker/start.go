package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/authconfig"
	"github.com/moby/moby/api/types/registry"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

var (
	// ErrStoppedWhileStarting is StartTask's error when the task was
	// stopped or destroyed before its container started, during the
	// image pull for instance.
	ErrStoppedWhileStarting = errors.New("task stopped while starting")
	// errStartAborted is StartTask's error when the agent stopping
	// abandoned the start.
	errStartAborted = errors.New("start abandoned: the agent is stopping")
)

// StartTask pulls the image unless it is present (or force_pull), then
// creates and starts the container. The pull counts as part of the
// start: StopTask or DestroyTask meanwhile abandon it, and no container
// is left behind.
func (d *Driver) StartTask(cfg *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	if cfg == nil || cfg.ID == "" {
		return nil, errors.New("start docker task: task config with an ID is required")
	}
	if d.clientErr != nil {
		return nil, drivers.NewRecoverableError(d.clientErr, false)
	}
	conf, err := parseTaskConfig(cfg.Config)
	if err != nil {
		return nil, fmt.Errorf("task %q: invalid config: %w", cfg.Name, err)
	}
	opts, binds, err := createOptions(cfg, conf, d.cfg)
	if err != nil {
		return nil, fmt.Errorf("task %q: %w", cfg.Name, err)
	}
	if d.mountsErr != nil {
		return nil, fmt.Errorf("task %q: %w", cfg.Name, d.mountsErr)
	}

	t := newTask(cfg)
	if err := d.tasks.Add(cfg.ID, t); err != nil {
		return nil, err
	}
	defer close(t.started)
	h, err := d.start(t, conf, opts, binds)
	if err != nil {
		// Finishing the task lets a concurrent StopTask or WaitTask return.
		t.finish(&drivers.ExitResult{Err: err}, time.Now())
		d.tasks.Remove(cfg.ID, t)
		return nil, err
	}
	return h, nil
}

// AbortStart abandons the start of taskID if it is under way.
func (d *Driver) AbortStart(taskID string) {
	if t, err := d.tasks.Get(taskID); err == nil && t.currentPhase() == phaseStarting {
		t.abort(errStartAborted)
	}
}

func (d *Driver) start(t *task, conf *taskConfig, opts client.ContainerCreateOptions, binds []bindSpec) (*drivers.TaskHandle, error) {
	ctx := t.startCtx
	imageID, err := d.ensureImage(ctx, t.cfg, conf)
	if err != nil {
		return nil, err
	}
	// The binds are resolved now, not before the pull: as late as can be,
	// and held for no longer than the container's creation and start.
	mounts, release, err := d.mounts.stage(t.cfg, opts.Name, binds)
	if err != nil {
		return nil, fmt.Errorf("task %q: %w", t.cfg.Name, err)
	}
	// The task's volume and tmpfs mounts follow its binds.
	opts.HostConfig.Mounts = append(mounts, opts.HostConfig.Mounts...)
	d.images.acquire(imageID)
	st, err := d.createAndStart(ctx, opts)
	release()
	if err != nil {
		d.images.release(imageID)
		return nil, err
	}
	st.Image, st.ImageID = conf.Image, imageID

	h := &drivers.TaskHandle{
		Version:   handleVersion,
		Driver:    DriverName,
		Config:    t.cfg,
		State:     drivers.TaskStateRunning,
		StartedAt: st.StartedAt,
	}
	if err := h.SetDriverState(st); err != nil {
		d.removeContainer(st.ContainerID)
		d.images.release(imageID)
		return nil, err
	}
	t.running(st)
	if err := d.watch(t); err != nil {
		d.removeContainer(st.ContainerID)
		d.images.release(imageID)
		return nil, err
	}
	d.logger.Debug("started task", "task_id", t.cfg.ID, "container_id", st.ContainerID, "image", conf.Image)
	return h, nil
}

// ensureImage makes sure the image is present, pulling it unless it is
// (or force_pull is set), and returns its ID. The pull's progress goes to
// the task's events.
func (d *Driver) ensureImage(ctx context.Context, cfg *drivers.TaskConfig, conf *taskConfig) (string, error) {
	if !conf.ForcePull {
		id, err := d.imageID(ctx, conf.Image)
		if err != nil {
			return "", startError(ctx, fmt.Errorf("inspect image %s: %w", conf.Image, err))
		}
		if id != "" {
			return id, nil
		}
	}
	auth, err := encodeAuth(conf.Auth)
	if err != nil {
		return "", err
	}
	cfg.Emit(downloadingEvent(conf.Image, nil))
	timeoutErr := fmt.Errorf("pull image %s: not done within %s (config key \"image_pull_timeout\")", conf.Image, conf.ImagePullTimeout)
	pullCtx, cancel := context.WithTimeoutCause(ctx, conf.ImagePullTimeout, drivers.NewRecoverableError(timeoutErr, true))
	defer cancel()
	err = d.pulls.Pull(pullCtx, conf.Image, auth, d.cfg.progressInterval, func(s progressSnapshot) {
		cfg.Emit(downloadingEvent(conf.Image, &s))
	})
	if err != nil {
		return "", startError(ctx, err)
	}
	id, err := d.imageID(ctx, conf.Image)
	switch {
	case err != nil:
		return "", startError(ctx, fmt.Errorf("inspect image %s: %w", conf.Image, err))
	case id == "":
		return "", drivers.NewRecoverableError(fmt.Errorf("image %s is missing after its pull", conf.Image), true)
	}
	return id, nil
}

// imageID returns the ID of the image, or "" when the engine lacks it.
func (d *Driver) imageID(ctx context.Context, ref string) (string, error) {
	img, err := d.client.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return img.ID, nil
}

func encodeAuth(a *authConfig) (string, error) {
	if a == nil {
		return "", nil
	}
	s, err := authconfig.Encode(registry.AuthConfig{Username: a.Username, Password: a.Password, ServerAddress: a.ServerAddress})
	if err != nil {
		return "", fmt.Errorf(`config key "auth": %w`, err)
	}
	return s, nil
}

// createAndStart creates and starts the container. Whatever goes wrong,
// including the start being abandoned, no container is left.
func (d *Driver) createAndStart(ctx context.Context, opts client.ContainerCreateOptions) (driverState, error) {
	created, err := d.client.ContainerCreate(ctx, opts)
	if cerrdefs.IsConflict(err) && ctx.Err() == nil {
		// A container of this run's name, left by an attempt that did
		// not finish: it never ran as this task.
		d.removeContainer(opts.Name)
		created, err = d.client.ContainerCreate(ctx, opts)
	}
	if err != nil {
		if ctx.Err() != nil {
			// The engine may have created it as the request was cut off.
			d.removeContainer(opts.Name)
		}
		return driverState{}, startError(ctx, fmt.Errorf("create container: %w", err))
	}
	st := driverState{ContainerID: created.ID, ContainerName: opts.Name}
	if _, err := d.client.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		d.removeContainer(created.ID)
		return driverState{}, startError(ctx, fmt.Errorf("start container: %w", err))
	}
	insp, err := d.client.ContainerInspect(ctx, created.ID, client.ContainerInspectOptions{})
	if err != nil {
		d.removeContainer(created.ID)
		return driverState{}, startError(ctx, fmt.Errorf("inspect container: %w", err))
	}
	if s := insp.Container.State; s != nil {
		st.PID = s.Pid
		st.StartedAt = parseEngineTime(s.StartedAt)
	}
	if st.StartedAt.IsZero() {
		st.StartedAt = time.Now()
	}
	return st, nil
}

// startError is err, or the reason the start was abandoned if it was.
// Requests the engine refuses as invalid (a bad network mode, a missing
// executable) will fail again; other failures may not.
func startError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	var re *drivers.RecoverableError
	if errors.As(err, &re) {
		return err
	}
	permanent := cerrdefs.IsInvalidArgument(err) || cerrdefs.IsNotFound(err) || cerrdefs.IsPermissionDenied(err)
	return drivers.NewRecoverableError(err, !permanent)
}

// removeContainer removes the container, by ID or name, and whatever
// runs in it; one already gone is fine.
func (d *Driver) removeContainer(idOrName string) {
	ctx, cancel := engineCtx()
	defer cancel()
	_, err := d.client.ContainerRemove(ctx, idOrName, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		d.logger.Warn("failed to remove container", "container", idOrName, "error", err)
	}
}

// parseEngineTime reads a time the engine reports; its zero time
// ("0001-01-01T00:00:00Z") is the zero time.
func parseEngineTime(s string) time.Time {
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || at.Year() <= 1 {
		return time.Time{}
	}
	return at
}
