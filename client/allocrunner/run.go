package allocrunner

import (
	"context"
	"sync/atomic"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// Run runs the allocation. It blocks until every task is dead and the
// postrun hooks have run (WaitCh is then closed), or until Shutdown
// detaches the runner from its running tasks.
func (ar *AllocRunner) Run() {
	ar.mu.Lock()
	if ar.runCalled {
		ar.mu.Unlock()
		return
	}
	ar.runCalled = true
	ar.mu.Unlock()
	defer close(ar.runDone)

	select {
	case <-ar.shutdownCh:
		return
	default:
	}

	ar.mu.Lock()
	alloc := ar.alloc
	ar.mu.Unlock()
	if err := ar.stateDB.PutAllocation(alloc); err != nil {
		ar.logger.Error("failed to persist allocation", "error", err)
	}
	if err := ar.prerun(); err != nil {
		ar.logger.Error("allocation setup failed", "error", err)
		for _, e := range ar.tasks {
			e.runner.Fail(taskrunner.NewSetupFailureEvent(err))
		}
	}
	ar.mu.Lock()
	ar.carryOutKills = true
	ar.mu.Unlock()
	tasksDone := ar.runTasks()
	ar.killOnStart()
	ar.coordinate()

	for {
		select {
		case <-ar.taskStateCh:
			ar.coordinate()
		case <-tasksDone:
			ar.endKills()
			if ar.shuttingDown() {
				ar.shutdownHooks()
				ar.notifier.stop()
				return
			}
			ar.coordinate()
			ar.postrun()
			ar.notifier.stop()
			close(ar.waitCh)
			return
		case <-ar.shutdownCh:
			for _, e := range ar.tasks {
				e.runner.Shutdown()
			}
			<-tasksDone
			ar.endKills()
			ar.shutdownHooks()
			ar.notifier.stop()
			return
		}
	}
}

// killOnStart kills what must not run on: the tasks of an allocation an
// earlier agent was killing (it recorded why: max_run_duration, a stop, a
// destroy...), of one this runner was asked to kill before its Prerun hooks
// had run, or of one the servers have stopped.
func (ar *AllocRunner) killOnStart() {
	ar.mu.Lock()
	recorded := ar.arState.KillReason
	stop := desiredStop(ar.alloc)
	started := false
	for _, e := range ar.tasks {
		if !e.runner.TaskState().StartedAt.IsZero() {
			started = true
		}
	}
	ar.mu.Unlock()
	reason := recorded
	switch {
	case stop && !started:
		reason = nextKillReason(reason, state.KillReasonNotRunnable)
	case stop:
		reason = nextKillReason(reason, state.KillReasonStopped)
	}
	if reason != "" {
		ar.killAll(reason)
	}
}

// runTasks runs every task runner, each on its goroutine, and returns a
// channel closed once all of them have returned. The last to return closes
// it: no goroutine waits on them.
func (ar *AllocRunner) runTasks() <-chan struct{} {
	done := make(chan struct{})
	running := atomic.Int64{}
	running.Store(int64(len(ar.tasks)))
	if len(ar.tasks) == 0 {
		close(done)
	}
	for _, e := range ar.tasks {
		go func() {
			e.runner.Run()
			if running.Add(-1) == 0 {
				close(done)
			}
		}()
	}
	return done
}

// coordinate applies the group's lifecycle to the tasks' current states:
// it opens the start gates now due and, unless the whole allocation is
// being killed, kills the tasks the lifecycle wants dead. Then it tells the
// state notifier.
func (ar *AllocRunner) coordinate() {
	type kill struct {
		runner *taskrunner.TaskRunner
		event  *structs.TaskEvent
	}
	var kills []kill

	ar.mu.Lock()
	g := ar.groupStatesLocked()
	reason := ar.arState.KillReason
	runPoststop := reason == "" || runsPoststop(reason)
	for _, e := range ar.tasks {
		if e.gateOpen {
			continue
		}
		// While the allocation is being killed only poststop tasks may
		// still start, and only when the kill lets them.
		if reason != "" && !e.task.IsPoststop() {
			continue
		}
		if g.mayStart(e.task, runPoststop) {
			close(e.gate)
			e.gateOpen = true
		}
	}
	// A kill in force already kills every task the lifecycle could want
	// dead; the lifecycle's own kills would only race it and record the
	// wrong reason (a leader the kill took down is no reason of its own).
	var lifecycleKills []lifecycleKill
	if reason == "" {
		lifecycleKills = g.kills()
	}
	for _, k := range lifecycleKills {
		e := ar.lookupTask(k.task)
		if e.killSent {
			continue
		}
		e.killSent = true
		kills = append(kills, kill{e.runner, k.event()})
	}
	ar.mu.Unlock()

	for _, k := range kills {
		go k.runner.Kill(context.Background(), k.event)
	}
	ar.notifier.notify()
}

func (ar *AllocRunner) shuttingDown() bool {
	select {
	case <-ar.shutdownCh:
		return true
	default:
		return false
	}
}
