package allocrunner

import "github.com/drover-io/drover/client/state"

// killPlan is what a kill of every task does, in this order:
//
//  1. record reason in the persisted runner state (when record is set),
//     before anything else, so that an agent that stops in the middle
//     finishes the kill for the same reason;
//  2. unless carryOut is set, nothing more: Run, or the next agent,
//     carries the kill out from the recorded reason;
//  3. on the runner's first kill carried out (first), the PreKill hooks,
//     then the group's shutdown_delay;
//  4. kill each task of kill, with a Killing event saying message
//     (empty: the task runner's default).
type killPlan struct {
	reason   state.KillReason
	record   bool
	carryOut bool
	first    bool
	kill     []string
	message  string
}

// taskView is a task as a kill plan sees it.
type taskView struct {
	name     string
	poststop bool
	dead     bool
}

// planKill is the plan of a kill of every task for asked, in phase p,
// recorded being the reason an earlier kill recorded (empty: none). ok is
// false when the kill does nothing at all:
//
//   - every task is dead: there is nothing to kill, and nothing to record;
//   - the reason in force does not change (nextKillReason: a kill that
//     lets poststop tasks run is overtaken by one that does not, any other
//     later kill is ignored), and the runner is already killing for it, or
//     only records kills;
//
// A kill carried out kills every task still alive, but the poststop tasks
// when the reason lets them run after the others (runsPoststop): those
// that have not started then never do. A restored runner asked to kill
// for a reason it recorded carries that kill out.
func planKill(p phase, recorded state.KillReason, tasks []taskView, asked state.KillReason) (plan killPlan, ok bool) {
	if allDead(tasks) {
		return killPlan{}, false
	}
	next := nextKillReason(recorded, asked)
	changed := next != recorded
	if !changed && p != phaseRunning {
		return killPlan{}, false
	}
	plan = killPlan{reason: next, record: changed}
	if !p.carriesOutKills() {
		return plan, true
	}
	plan.carryOut = true
	plan.first = p == phaseRunning
	plan.message = killEventMessage(next)
	for _, t := range tasks {
		if t.dead || (t.poststop && runsPoststop(next)) {
			continue
		}
		plan.kill = append(plan.kill, t.name)
	}
	return plan, true
}

func allDead(tasks []taskView) bool {
	for _, t := range tasks {
		if !t.dead {
			return false
		}
	}
	return true
}

// reasonOnStart is the kill Run carries out once the Prerun hooks are
// done (empty: none): the one recorded (an earlier agent's, or one asked
// before), or the servers' stop, which is not_runnable for an allocation
// none of whose tasks has started.
func reasonOnStart(recorded state.KillReason, desiredStop, anyStarted bool) state.KillReason {
	switch {
	case desiredStop && !anyStarted:
		return nextKillReason(recorded, state.KillReasonNotRunnable)
	case desiredStop:
		return nextKillReason(recorded, state.KillReasonStopped)
	default:
		return recorded
	}
}
