package allocrunner

import (
	"context"
	"time"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/state"
)

// killAll kills every task of the allocation for reason, and returns
// without waiting for them to die.
//
// The reason in force (see nextKillReason) is recorded first, in the
// persisted runner state, so that an agent that restarts in the middle of
// the kill finishes it for the same reason. From then on no task starts,
// except poststop tasks when the reason lets them run after the others.
// Each task still alive gets a Killing event, its kill_signal and, after
// kill_timeout, SIGKILL; the restart policy does not restart it. The
// PreKill hooks and the group's shutdown_delay come before the first kill.
//
// A kill is carried out only between the end of the Prerun hooks and the
// start of the Postrun or Shutdown hooks (see carryOutKills); outside that
// window it is only recorded. One asked earlier is carried out by Run after
// the Prerun hooks; one asked later finds every task dead, or the agent
// stopping, and the next agent finishes it from the recorded reason, as it
// does a kill whose shutdown_delay an agent stop cut short.
//
// A kill that lets poststop tasks run is overtaken by one that does not;
// any other later kill is ignored, and so is a kill once every task is
// dead: there is nothing left to kill, and nothing to record. A restored
// runner whose state records a reason kills for that one, whatever it is
// asked to kill for first, unless the new reason overtakes it.
func (ar *AllocRunner) killAll(reason state.KillReason) {
	ar.mu.Lock()
	recorded := ar.arState.KillReason
	next := nextKillReason(recorded, reason)
	if ar.killing && next == recorded {
		ar.mu.Unlock()
		return
	}
	if ar.allDeadLocked() {
		ar.mu.Unlock()
		return
	}
	ar.arState.KillReason = next
	rs := ar.arState.Copy()
	carryOut := ar.carryOutKills
	firstKill := carryOut && !ar.killing
	var preKillDone chan struct{}
	if firstKill {
		ar.killing = true
		ar.preKillDone = make(chan struct{})
		preKillDone = ar.preKillDone
	}
	var victims []*taskEntry
	for _, e := range ar.tasks {
		if e.task.IsPoststop() && runsPoststop(next) {
			continue
		}
		victims = append(victims, e)
	}
	delay := ar.groupShutdownDelayLocked()
	ar.mu.Unlock()

	if next != recorded {
		if err := ar.stateDB.PutAllocRunnerState(ar.id, rs); err != nil {
			ar.logger.Error("failed to persist alloc runner state", "error", err)
		}
	}
	// Wake the run loop: it must stop opening start gates.
	ar.TaskStateUpdated()
	if !carryOut {
		ar.logger.Info("kill recorded, not carried out yet", "reason", next)
		return
	}
	ar.logger.Info("killing all tasks", "reason", next)

	// The kill goes on in goroutines of its own, so that the caller (the
	// run loop, a hook's timer, Update, Destroy) is never held up by
	// shutdown_delay or a slow task; hooks.go says why nobody needs to
	// wait for them.
	go func() {
		if firstKill {
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
		for _, e := range victims {
			go e.runner.Kill(context.Background(), taskrunner.NewKillingEvent(killEventMessage(next)))
		}
	}()
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

// endKills stops carrying out kills, and waits until the PreKill hooks of
// a kill in progress have returned: the Postrun or Shutdown hooks come
// next.
func (ar *AllocRunner) endKills() {
	ar.mu.Lock()
	ar.carryOutKills = false
	done := ar.preKillDone
	ar.mu.Unlock()
	if done != nil {
		<-done
	}
}

// allDeadLocked reports whether every task is dead. The caller holds mu.
func (ar *AllocRunner) allDeadLocked() bool {
	for _, e := range ar.tasks {
		if !e.runner.IsDead() {
			return false
		}
	}
	return true
}

// recordedKillReason is the kill reason the runner's persisted state
// records: the kill in force, or one an earlier agent began; empty when
// there is none.
func (ar *AllocRunner) recordedKillReason() state.KillReason {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.arState.KillReason
}
