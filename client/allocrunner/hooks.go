package allocrunner

import "github.com/drover-io/drover/structs"

// The contract between the runner and its hooks. Each kind says below when
// it is called, from which goroutine, what may run at the same time and
// when it is skipped. In short, for one runner:
//
//	Update*  ... Prerun  ... PreKill? ... (Postrun | Shutdown)  ... Destroy?
//	         <------------- Update*, at any moment ------------>
//
// Prerun, Postrun and Shutdown run on the goroutine that calls Run (Destroy
// calls Run itself when nobody has), one after the other. Update runs on
// the goroutine that calls AllocRunner.Update, PreKill on a goroutine of
// the kill, Destroy on the goroutine that calls AllocRunner.Destroy.
// Within a kind the hooks are called in the order they were registered,
// one at a time. A hook that starts goroutines of its own (the
// max_run_duration hook's gauge refresh, and its deadline's call) must
// stop them in Postrun, Shutdown and Destroy, whichever comes, and wait
// for them to end.
//
// The kill goroutines. killAll returns without waiting for the kill it
// starts: one goroutine runs the PreKill hooks, waits shutdown_delay, and
// starts one Kill per task, each in a goroutine of its own; coordinate
// starts the lifecycle's kills the same way. None of them needs to be
// waited for:
//
//   - what they act on is fixed before they start, under the runner's
//     lock: the tasks to kill, their Killing events and, for killAll, the
//     reason, already recorded in the persisted state (killPlan); a later
//     kill or update cannot change it under them;
//   - a kill is carried out only in the running and killing phases
//     (phase.go), once the Prerun hooks have run, and Run starts every
//     task runner right after them, so each Kill returns: it waits for its
//     task runner's Run, which ends when the task is dead or the agent
//     stops;
//   - a task runner's Kill may be called concurrently, more than once, and
//     after its task died, when it returns at once and changes nothing; so
//     a kill goroutine that outlives the tasks (it may sleep the whole
//     shutdown_delay after they died on their own) is harmless;
//   - Run waits for the PreKill hooks to return before it runs the Postrun
//     or Shutdown hooks, and carries out no kill after that point (the
//     ending phase); Destroy
//     removes the directory and state only after Run has ended with every
//     task dead;
//   - when the agent stops, the kill stops before its first Kill; one
//     already sent may still reach its task, and either way the next agent
//     finishes the kill from the recorded reason.

// RunnerHook is a piece of the alloc runner's work around its tasks. A hook
// implements any of the kinds below.
type RunnerHook interface {
	Name() string
}

// RunnerPrerunHook runs before any task starts.
//
// Prerun is called once, by Run, before any task runner runs: also on a
// runner restored after an agent restart, before it re-attaches to the
// tasks still running. It may run concurrently with Update. No task runs
// and no kill is carried out until every Prerun has returned: a kill asked
// meanwhile (a desired stop, an expired deadline) is recorded, and carried
// out after them, so PreKill never overlaps Prerun. An error fails the
// allocation: no task runs, and the Prerun of later hooks is skipped
// (their Postrun is not). Prerun is skipped altogether when the runner
// never runs, or is shut down before it does.
type RunnerPrerunHook interface {
	RunnerHook
	Prerun() error
}

// RunnerUpdateHook is told of every new version of the allocation the
// servers send.
//
// Update is called from the goroutine that calls AllocRunner.Update, once
// per version, one at a time and in the order the versions came. It may
// come before Prerun (before Run, or while Prerun runs) and after Postrun
// or Shutdown, and may run concurrently with any hook kind but Destroy and
// itself: once Destroy has begun, updates are ignored. For a desired stop,
// Update runs before the kill begins.
type RunnerUpdateHook interface {
	RunnerHook
	Update(req *RunnerUpdateRequest) error
}

// RunnerUpdateRequest carries the updated allocation.
type RunnerUpdateRequest struct {
	Alloc *structs.Allocation
}

// RunnerPreKillHook runs before the runner kills every task.
//
// PreKill is called once per runner, on the kill's goroutine, when the
// runner first carries out a kill of every task (see killAll): after every
// Prerun has returned, before that kill's shutdown_delay and its first
// task kill. Postrun and Shutdown wait for it, and a kill asked once they
// have begun is only recorded, so PreKill may run concurrently only with
// Update. It is skipped when no such kill is carried out: the tasks end on
// their own, or the agent stops first. A runner restored in the middle of
// a kill calls it again before it finishes the kill, so it must bear being
// called once per agent.
type RunnerPreKillHook interface {
	RunnerHook
	PreKill()
}

// RunnerPostrunHook runs once every task is dead.
//
// Postrun is called once, by Run, when every task runner has finished with
// its task dead, after any PreKill has returned; also when Prerun failed.
// A hook gets it even if its own Prerun was skipped (an earlier hook's
// failed). It may run concurrently with Update. It is skipped when the
// agent stops first: exactly one of Postrun and Shutdown is called after
// Prerun.
type RunnerPostrunHook interface {
	RunnerHook
	Postrun() error
}

// RunnerShutdownHook runs when the agent stops and leaves the tasks
// running.
//
// Shutdown is called once, by Run, after AllocRunner.Shutdown has detached
// the task runners (the tasks run on, for the next agent to re-attach),
// and after any PreKill has returned. It may run concurrently with Update.
// It is skipped when Postrun was called instead, and when the runner is
// shut down before it runs (no Prerun either).
type RunnerShutdownHook interface {
	RunnerHook
	Shutdown()
}

// RunnerDestroyHook runs when the allocation is destroyed, after its tasks
// are dead.
//
// Destroy is called once, from the goroutine that calls
// AllocRunner.Destroy, after Run has ended with every task dead: after
// Postrun, and so after Prerun (Destroy runs a runner that never ran). No
// other hook runs concurrently: updates are ignored from the start of
// AllocRunner.Destroy. It is skipped when the agent stops before the
// tasks are dead: they run on, and the next agent, which restores the
// recorded kill, destroys the allocation in its turn.
type RunnerDestroyHook interface {
	RunnerHook
	Destroy() error
}
