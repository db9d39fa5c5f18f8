package taskrunner

import (
	"errors"
	"fmt"
	"time"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// Run runs the task until it is dead for good, or until Shutdown detaches
// the runner. It blocks; WaitCh is closed when it returns.
func (tr *TaskRunner) Run() {
	if !tr.started.CompareAndSwap(false, true) {
		tr.logger.Error("Run called twice")
		return
	}
	defer close(tr.waitCh)
	defer tr.maxRun.close()

	if tr.IsDead() || tr.shuttingDown() {
		return
	}
	h, ok := tr.recoverTask()
	if !ok {
		return
	}
	if h == nil && !tr.awaitStartGate() {
		return
	}
	if h != nil {
		tr.resumeTemplates()
	}
	tr.beginMaxRun()
	for {
		if h == nil {
			var ok bool
			if h, ok = tr.startRun(); !ok {
				return
			}
			if h == nil {
				continue
			}
		}
		if !tr.superviseRun(h) {
			return
		}
		h = nil
	}
}

// awaitStartGate waits until the lifecycle lets the task start. It reports
// false when the runner must stop instead.
func (tr *TaskRunner) awaitStartGate() bool {
	return waitIdle(tr, tr.startGate)
}

// waitIdle waits, while no run is in progress, until ready yields (at
// once for a nil channel) or the task is killed. It reports false when the
// runner must stop: the task was killed (it is then dead) or the agent is
// stopping.
func waitIdle[T any](tr *TaskRunner, ready <-chan T) bool {
	if ready != nil {
		select {
		case <-ready:
		case <-tr.killCtx.Done():
		case <-tr.shutdownCtx.Done():
			return false
		}
	}
	if tr.killed() {
		tr.finishIdle()
		return false
	}
	return !tr.shuttingDown()
}

// startRun prepares and starts one run. It returns the run's handle, or
// nil with true when a failed start is to be retried, or false when the
// runner must stop.
func (tr *TaskRunner) startRun() (*drivers.TaskHandle, bool) {
	alloc, task := tr.snapshot()
	env := buildTaskEnv(tr.withOwnState(alloc), task, tr.taskDir, tr.node)

	ctx, endSetup := tr.setupContext()
	err := tr.runPrestartHooks(ctx, &prestartRequest{Task: task, TaskDir: tr.taskDir, Env: env, Emit: func(ev *structs.TaskEvent) { tr.emit(ev) }})
	endSetup()
	switch {
	case tr.killed():
		tr.finishIdle()
		return nil, false
	case tr.shuttingDown():
		return nil, false
	case err != nil:
		var he *hookError
		if errors.As(err, &he) {
			tr.emit(he.event)
		} else {
			tr.emit(setupFailureEvent(err, !drivers.IsRecoverable(err)))
		}
		return nil, tr.afterStartError(err)
	}

	drv, ok := tr.drivers.Lookup(task.Driver)
	if !ok {
		err := fmt.Errorf("driver %q is not available on this node", task.Driver)
		tr.emit(driverFailureEvent(err))
		return nil, tr.afterStartError(err)
	}
	cfg := tr.driverConfig(alloc, task, env)
	if err := checkExecLimits(cfg); err != nil {
		tr.emit(setupFailureEvent(err, true))
		return nil, tr.afterStartError(err)
	}
	if err := checkNetNS(drv, cfg); err != nil {
		tr.emit(setupFailureEvent(err, true))
		return nil, tr.afterStartError(err)
	}
	if cfg.Mounts, err = volumeMounts(drv, alloc, task, tr.node); err != nil {
		tr.emit(setupFailureEvent(err, true))
		return nil, tr.afterStartError(err)
	}
	h, err := tr.startDriverTask(drv, cfg)
	h = withoutEnv(h)
	if h != nil {
		tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
			local.TaskHandle = h
			tr.setRunning(ts)
		})
	}
	if tr.killed() {
		if h != nil {
			tr.stopKilled(h, nil)
		} else {
			tr.finishIdle()
		}
		return nil, false
	}
	if h == nil && tr.shuttingDown() {
		// The start was abandoned for the agent's stop: the next agent
		// starts the task afresh, so the failure is no failure of the task.
		return nil, false
	}
	if err != nil {
		tr.emit(driverFailureEvent(err))
		return nil, tr.afterStartError(err)
	}
	tr.maxRun.runStarted()
	return h, true
}

// startDriverTask starts the task with its driver. A kill during a slow
// start stops the start. The agent stopping aborts only a start the
// driver can abandon cleanly (an image pull, see drivers.StartAborter);
// otherwise the started task must be recorded for the next agent to
// recover.
func (tr *TaskRunner) startDriverTask(drv drivers.Driver, cfg *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	type started struct {
		h   *drivers.TaskHandle
		err error
	}
	done := make(chan started, 1)
	go func() {
		h, err := drv.StartTask(cfg)
		done <- started{h, err}
	}()
	shutdown := tr.shutdownCtx.Done()
	if _, ok := drv.(drivers.StartAborter); !ok {
		shutdown = nil
	}
	select {
	case r := <-done:
		return r.h, r.err
	case <-shutdown:
		drv.(drivers.StartAborter).AbortStart(cfg.ID)
		select {
		case r := <-done:
			return r.h, r.err
		case <-tr.killCtx.Done():
		}
	case <-tr.killCtx.Done():
	}

	_, task := tr.snapshot()
	signal, timeout := killParams(task)
	const retry = 50 * time.Millisecond
	for {
		// The driver may not know the task yet; try until it does or the
		// start returns.
		err := drv.StopTask(cfg.ID, timeout, signal)
		if err == nil || !errors.Is(err, drivers.ErrTaskNotFound) {
			r := <-done
			return r.h, r.err
		}
		timer := time.NewTimer(retry)
		select {
		case r := <-done:
			timer.Stop()
			return r.h, r.err
		case <-timer.C:
		}
	}
}

// superviseRun waits for the run to end, or for a kill, a restart request
// or the agent stopping. It reports whether the task is to run again.
func (tr *TaskRunner) superviseRun(h *drivers.TaskHandle) bool {
	drv, ok := tr.drivers.Lookup(h.Driver)
	if !ok {
		return tr.afterExit(h, &drivers.ExitResult{Err: fmt.Errorf("driver %q is not available on this node", h.Driver)})
	}
	// Every way out of the select below but the agent's stop reads the
	// channel (afterExit, or the stop of a kill or restart), and the stop
	// closes it: no context of the run's own is needed, nor the map of
	// children it would hold for as long as the task runs.
	exitCh, err := drv.WaitTask(tr.shutdownCtx, h.Config.ID)
	if err != nil {
		return tr.afterExit(h, &drivers.ExitResult{Err: fmt.Errorf("wait for task: %w", err)})
	}
	tr.startChecks(h)
	defer tr.stopChecks()
	for {
		select {
		case res, ok := <-exitCh:
			tr.stopChecks()
			if !ok {
				res = &drivers.ExitResult{Err: errors.New("driver stopped reporting on the task")}
			}
			return tr.afterExit(h, res)
		case <-tr.killCtx.Done():
			tr.stopChecks()
			tr.stopKilled(h, exitCh)
			return false
		case <-tr.shutdownCtx.Done():
			return false
		case req := <-tr.restartCh:
			if req.runID != "" && req.runID != h.Config.ID {
				close(req.done) // asked of an earlier run
				continue
			}
			tr.stopChecks()
			return tr.restartRun(h, exitCh, req)
		}
	}
}

// afterExit records a run that ended by itself and applies the restart
// policy. It reports whether the task is to run again.
func (tr *TaskRunner) afterExit(h *drivers.TaskHandle, res *drivers.ExitResult) bool {
	tr.releaseRun(h)
	if tr.killed() {
		tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
			local.TaskHandle = nil
			tr.appendEvent(terminatedEvent(res))
			setDead(ts, false, res)
		})
		return false
	}
	tr.mu.Lock()
	decision := tr.restarts.onExit(res, time.Now())
	tr.mu.Unlock()
	tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
		local.TaskHandle = nil
		tr.appendEvent(terminatedEvent(res))
		tr.applyDecision(ts, local, decision, res)
	})
	return decision.Verdict == restartTask && tr.waitRestartDelay(decision.Delay)
}

// afterStartError applies the restart policy to a run that did not start.
// It reports whether the task is to run again.
func (tr *TaskRunner) afterStartError(err error) bool {
	tr.logger.Warn("task failed to start", "error", err)
	tr.mu.Lock()
	decision := tr.restarts.onStartError(err, time.Now())
	tr.mu.Unlock()
	tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
		tr.applyDecision(ts, local, decision, nil)
	})
	return decision.Verdict == restartTask && tr.waitRestartDelay(decision.Delay)
}

// applyDecision records the restart tracker's decision on the run that
// ended with res (nil: a run that did not start). The caller holds the
// state lock (see updateState).
func (tr *TaskRunner) applyDecision(ts *structs.TaskState, local *state.TaskRunnerLocalState, d restartDecision, res *drivers.ExitResult) {
	switch d.Verdict {
	case restartTask:
		tr.setRestarting(ts, local, restartingEvent(d.Delay, d.Reason))
	case taskComplete:
		setDead(ts, false, res)
	case taskFailed:
		tr.appendEvent(notRestartingEvent(d.Reason, true))
		setDead(ts, true, res)
	}
	local.RestartCount, local.RestartWindowStart = tr.restarts.persisted()
}

// waitRestartDelay waits before a restart. It reports false when the task
// was killed meanwhile (it is then dead) or the agent is stopping.
func (tr *TaskRunner) waitRestartDelay(delay time.Duration) bool {
	if delay <= 0 {
		return waitIdle[time.Time](tr, nil)
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	return waitIdle(tr, timer.C)
}

// finishIdle marks dead a task killed while no run was in progress: before
// its first start, during setup, or between runs.
func (tr *TaskRunner) finishIdle() {
	tr.updateState(func(ts *structs.TaskState, local *state.TaskRunnerLocalState) {
		local.TaskHandle = nil
		if !ts.StartedAt.IsZero() {
			tr.appendEvent(killedEvent(nil))
		}
		setDead(ts, false, nil)
	})
}

// releaseRun lets the driver free what it holds for an ended run.
func (tr *TaskRunner) releaseRun(h *drivers.TaskHandle) {
	drv, ok := tr.drivers.Lookup(h.Driver)
	if !ok {
		return
	}
	if err := drv.DestroyTask(h.Config.ID, true); err != nil && !errors.Is(err, drivers.ErrTaskNotFound) {
		tr.logger.Warn("failed to release task in driver", "task_id", h.Config.ID, "error", err)
	}
}

// withoutEnv is the handle as the runner keeps it for the run, in memory
// and in the state DB: without the task's environment. Only the start
// needs the environment (a driver recovers a task by its ID and driver
// state); kept, it would be a map per running task, and the state DB
// would hold the secrets in it (NOMAD_TOKEN). The driver's handle is
// left as it is: the driver may share its config.
func withoutEnv(h *drivers.TaskHandle) *drivers.TaskHandle {
	if h == nil || h.Config == nil || h.Config.Env == nil {
		return h
	}
	kept, cfg := *h, *h.Config
	cfg.Env = nil
	kept.Config = &cfg
	return &kept
}
