package state

// KillReason is why an alloc runner kills every task of its allocation.
// It is stored in the runner's state, so a value once written must keep
// its meaning: add new ones, never rename or reuse one. The alloc runner
// decides what each reason means (package allocrunner, kill_reason.go);
// a reason it does not know, written by a newer agent, still kills every
// task and lets nothing more start.
type KillReason string

const (
	// KillReasonStopped: the servers stopped the allocation. Poststop
	// tasks still run once the others are dead.
	KillReasonStopped KillReason = "stopped"
	// KillReasonDestroyed: the client is destroying the allocation.
	KillReasonDestroyed KillReason = "destroyed"
	// KillReasonNotRunnable: the servers had stopped the allocation before
	// any of its tasks started.
	KillReasonNotRunnable KillReason = "not_runnable"
	// KillReasonMaxRunDuration: the allocation outlived its group's
	// max_run_duration.
	KillReasonMaxRunDuration KillReason = "max_run_duration"
)
