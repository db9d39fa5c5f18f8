package allocrunner

import (
	"context"
	"time"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/state"
)

// killAll kills every task of the allocation for asked, and returns
// without waiting for them to die.
//
// What the kill does is planKill's answer for the runner's phase, the
// reason it recorded and its tasks' states; the steps below are
// killPlan's. From the moment the reason is recorded no task starts,
// except poststop tasks when the reason lets them run after the others.
// Each task killed gets a Killing event, its kill_signal and, after
// kill_timeout, SIGKILL; the restart policy does not restart it.
//
// The kill goes on in goroutines of its own, so that the caller (the run
// loop, a hook's timer, Update, Destroy) is never held up by
// shutdown_delay or a slow task; hooks.go says why nobody needs to wait
// for them.
func (ar *AllocRunner) killAll(asked state.KillReason) {
	ar.mu.Lock()
	plan, ok := planKill(ar.phase, ar.arState.KillReason, ar.taskViewsLocked(), asked)
	if !ok {
		ar.mu.Unlock()
		return
	}
	ar.arState.KillReason = plan.reason
	rs := ar.arState.Copy()
	var preKillDone chan struct{}
	if plan.first {
		ar.phase = phaseKilling
		ar.preKillDone = make(chan struct{})
		preKillDone = ar.preKillDone
	}
	delay := ar.groupShutdownDelayLocked()
	p := ar.phase
	ar.mu.Unlock()

	// 1. Record the reason.
	if plan.record {
		if err := ar.stateDB.PutAllocRunnerState(ar.id, rs); err != nil {
			ar.logger.Error("failed to persist alloc runner state", "error", err)
		}
	}
	// Wake the run loop: it must stop opening start gates.
	ar.TaskStateUpdated()
	// 2. Or only record it.
	if !plan.carryOut {
		ar.logger.Info("kill recorded, not carried out yet", "reason", plan.reason, "phase", p)
		return
	}
	ar.logger.Info("killing all tasks", "reason", plan.reason)
	go ar.carryOut(plan, delay, preKillDone)
}

// carryOut carries out the rest of plan: on the first kill, the PreKill
// hooks (then it closes preKillDone) and shutdown_delay (delay); then the
// kill of each task, each in a goroutine of its own.
func (ar *AllocRunner) carryOut(plan killPlan, delay time.Duration, preKillDone chan struct{}) {
	// 3. The PreKill hooks and shutdown_delay, on the first kill.
	if plan.first {
		ar.preKill()
		close(preKillDone)
		if !ar.sleepUnlessShutdown(delay) {
			return
		}
	}
	// A stopping agent leaves its tasks running, a kill in progress
	// included: the next agent finishes it from the recorded reason.
	if ar.shuttingDown() {
		return
	}
	// 4. Kill the tasks.
	for _, name := range plan.kill {
		go ar.lookupTask(name).runner.Kill(context.Background(), taskrunner.NewKillingEvent(plan.message))
	}
}

// sleepUnlessShutdown waits d; it reports false if the runner is shut down
// meanwhile.
func (ar *AllocRunner) sleepUnlessShutdown(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ar.shutdownCh:
		return false
	}
}

// groupShutdownDelayLocked is the group's shutdown_delay, or zero when the
// allocation asks to skip it. The caller holds mu.
func (ar *AllocRunner) groupShutdownDelayLocked() time.Duration {
	if skip := ar.alloc.DesiredTransition.NoShutdownDelay; skip != nil && *skip {
		return 0
	}
	tg := ar.alloc.LookupTaskGroup()
	if tg == nil || tg.ShutdownDelay == nil {
		return 0
	}
	return *tg.ShutdownDelay
}

// endKills moves the runner to phaseEnding, where kills are only
// recorded, and waits until the PreKill hooks of a kill in progress have
// returned: the Postrun or Shutdown hooks come next.
func (ar *AllocRunner) endKills() {
	ar.mu.Lock()
	ar.phase = phaseEnding
	done := ar.preKillDone
	ar.mu.Unlock()
	if done != nil {
		<-done
	}
}

// taskViewsLocked is the tasks as a kill plan sees them. The caller holds
// mu.
func (ar *AllocRunner) taskViewsLocked() []taskView {
	views := make([]taskView, len(ar.tasks))
	for i, e := range ar.tasks {
		views[i] = taskView{name: e.task.Name, poststop: e.task.IsPoststop(), dead: e.runner.IsDead()}
	}
	return views
}

// recordedKillReason is the kill reason the runner's persisted state
// records: the kill in force, or one an earlier agent began; empty when
// there is none.
func (ar *AllocRunner) recordedKillReason() state.KillReason {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.arState.KillReason
}
