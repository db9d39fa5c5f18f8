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

// oomSettle bounds how long a container SIGKILLed by no one the driver
// knows of is re-read for the engine's OOM flag, and oomRecheck is the
// pause between reads. The engine learns of an OOM kill and of the exit
// it caused as two events that it may handle in either order, so the
// flag can be set just after the container reads as stopped.
const (
	oomSettle  = time.Second
	oomRecheck = 25 * time.Millisecond
)

// exitSIGKILL is a container's exit code when SIGKILL ended it.
const exitSIGKILL = 128 + 9

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
		if mayBeOOM(t, res) {
			res = d.settleOOM(ctx, id, res)
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

// mayBeOOM reports whether the exit could be an OOM kill the engine has
// not flagged yet: a SIGKILL the driver did not send, to a container
// with a memory limit.
func mayBeOOM(t *task, res *drivers.ExitResult) bool {
	return res.ExitCode == exitSIGKILL && !res.OOMKilled && res.Err == nil &&
		!t.killWasSent() && t.cfg.Resources != nil && t.cfg.Resources.MemoryMB > 0
}

// settleOOM re-reads the stopped container until the engine flags it
// OOM-killed or oomSettle has passed, and returns the last reading.
func (d *Driver) settleOOM(ctx context.Context, id string, res *drivers.ExitResult) *drivers.ExitResult {
	deadline := time.NewTimer(oomSettle)
	defer deadline.Stop()
	tick := time.NewTicker(oomRecheck)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return res
		case <-deadline.C:
			return res
		case <-tick.C:
		}
		if again := d.exitResult(id); again != nil && again.Err == nil {
			if again.OOMKilled {
				again.ExitedAt = res.ExitedAt
				return again
			}
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
