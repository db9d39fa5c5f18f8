package allocrunner

// phase is where a runner is in its life. It decides what a kill of
// every task asked now does (planKill): carried out, or only recorded.
//
//	created --Run--> settingUp --Prerun hooks done--> running
//	running --first kill carried out--> killing
//	running, killing --every task runner returned, or the agent stops--> ending
//
// The kill reason (state.KillReason, persisted) is the other half of the
// runner's state: a phase says when, the reason says what for.
type phase uint8

const (
	// phaseCreated: Run has not been called. A kill is only recorded;
	// Run carries it out after the Prerun hooks.
	phaseCreated phase = iota
	// phaseSettingUp: Run runs the Prerun hooks, and no task runs. A
	// kill is only recorded, and carried out after them.
	phaseSettingUp
	// phaseRunning: the tasks run as the lifecycle lets them. A kill is
	// carried out.
	phaseRunning
	// phaseKilling: every task is being killed for the recorded reason:
	// the PreKill hooks, the group's shutdown_delay, then each task's
	// kill. A kill for a reason that overtakes it is carried out too.
	phaseKilling
	// phaseEnding: every task runner has returned, or the agent is
	// stopping; the Postrun or Shutdown hooks run. A kill is only
	// recorded: nothing is left to kill, or the next agent carries it out.
	phaseEnding
)

// carriesOutKills reports whether a kill asked in phase p is carried out
// now rather than only recorded.
func (p phase) carriesOutKills() bool {
	return p == phaseRunning || p == phaseKilling
}

func (p phase) String() string {
	switch p {
	case phaseCreated:
		return "created"
	case phaseSettingUp:
		return "setting up"
	case phaseRunning:
		return "running"
	case phaseKilling:
		return "killing"
	case phaseEnding:
		return "ending"
	default:
		return "unknown"
	}
}
