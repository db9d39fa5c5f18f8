package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

// waitRetry is the pause before waiting on a container again after the
// engine dropped the wait while the container runs.
const waitRetry = time.Second

// watch starts copying the task's output and waiting for its container
// to stop; the task is done once both have ended.
func (d *Driver) watch(t *task) error {
	id := t.containerID()
	logs, err := startLogs(d.client, d.logger, t.cfg, t.stateDir, id, t.exited)
	if err != nil {
		return fmt.Errorf("task %q: logs: %w", t.cfg.Name, err)
	}
	t.mu.Lock()
	pid := t.state.PID
	t.mu.Unlock()
	proc, err := openProc(pid, id)
	if err != nil {
		d.logger.Debug("signals and exit through the engine", "container_id", id, "reason", err)
		proc = nil
	}
	ctx, stop := context.WithCancel(context.Background())
	t.mu.Lock()
	t.logs, t.stopWatch, t.watchDone, t.proc = logs, stop, make(chan struct{}), proc
	watchDone := t.watchDone
	t.mu.Unlock()
	if proc != nil {
		go t.watchProc(proc)
	}
	go func() {
		defer close(watchDone)
		res := d.waitContainer(ctx, id)
		if res == nil {
			return // detached
		}
		res.ExitedAt = t.exitTime(res.ExitedAt)
		close(t.exited)
		logs.wait(logDrainTimeout)
		t.finish(res, time.Now())
	}()
	return nil
}

// waitContainer waits until the container stops and returns how it
// ended, or nil when ctx ends first.
func (d *Driver) waitContainer(ctx context.Context, id string) *drivers.ExitResult {
	for {
		w := d.client.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
		select {
		case <-w.Result:
		case err := <-w.Error:
			if ctx.Err() != nil {
				return nil
			}
			d.logger.Debug("wait for container failed", "container_id", id, "error", err)
		case <-ctx.Done():
			return nil
		}
		if res := d.exitResult(id); res != nil {
			return res
		}
		retry := time.NewTimer(waitRetry)
		select {
		case <-ctx.Done():
			retry.Stop()
			return nil
		case <-retry.C:
		}
	}
}

// exitResult reads how the container ended from the engine, or returns
// nil while it still runs.
func (d *Driver) exitResult(id string) *drivers.ExitResult {
	ctx, cancel := engineCtx()
	defer cancel()
	insp, err := d.client.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	switch {
	case cerrdefs.IsNotFound(err):
		return &drivers.ExitResult{Err: fmt.Errorf("container %s was removed", shortID(id))}
	case err != nil:
		return nil
	}
	s := insp.Container.State
	if s == nil {
		return &drivers.ExitResult{Err: errors.New("the engine reports no state for the container")}
	}
	if s.Running || s.Paused || s.Restarting {
		return nil
	}
	res := &drivers.ExitResult{ExitCode: s.ExitCode, OOMKilled: s.OOMKilled, ExitedAt: parseEngineTime(s.FinishedAt)}
	if s.Error != "" {
		res.Err = errors.New(s.Error)
	}
	return res
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
