/*
Package allocrunner runs one allocation on a client: it sets up the
allocation's directory, runs one task runner per task in the order the
group's lifecycle sets, enforces the group's max_run_duration, runs the
checks of the group's services that belong to no task
(service_checks_hook.go), kills the
tasks when the allocation must stop, derives the allocation's client
status, applies the servers' updates, and persists enough that a restarted
agent picks the allocation up where it was.

# Usage

The client agent holds one AllocRunner per allocation placed on its node.
It creates the runner, restores it when the allocation comes from the
state DB of an earlier agent, and runs it; then it hands it every newer
version of the allocation, and in the end shuts it down (the agent stops,
the tasks run on) or destroys it (the allocation is gone for good):

	ar, err := allocrunner.NewAllocRunner(&allocrunner.Config{
		Alloc:        alloc,
		AllocDirRoot: allocDir,
		StateDB:      db,
		Drivers:      catalog,
		StateUpdater: batcher, // told of every change of the client status
		Node:         node,
	})
	if err != nil {
		// report the allocation failed
	}
	if restoring {
		if err := ar.Restore(); err != nil {
			// skip it
		}
	}
	go ar.Run()

	for {
		select {
		case alloc := <-newerVersions:
			ar.Update(alloc) // in place, or a desired stop
		case <-ar.WaitCh():
			// every task is dead and the Postrun hooks have run; the
			// runner stays until it is garbage collected
		case <-agentStopping:
			ar.Shutdown() // returns once Run has; the tasks run on
			return
		case <-gone:
			ar.Destroy() // kills, waits, removes the directory and state
			return
		}
	}

Run blocks until every task is dead or the runner is shut down. The
StateUpdater hears of every change of the allocation's ClientStatus,
ClientDescription and TaskStates, one at a time, from a goroutine of the
runner's own; Alloc returns the same at any moment.

# Hooks and their order

Around the task runners the runner calls its hooks (hooks.go), in the
order they were registered: the allocation directory's hook, the network
hook (the group's network namespace, for modes bridge, none and
cni/<name>: made in Prerun, also again for a restored runner, which gets
back the one its tasks run in; removed in Postrun and Destroy, kept on
Shutdown), then the max_run_duration hook. For one runner the calls come in this order:

	Update*  Prerun  PreKill?  (Postrun | Shutdown)  Destroy?

Prerun runs before any task starts, on Run's goroutine: the directory is
built, and the deadline armed; one that has passed is recorded as the kill
reason, and the kill follows as soon as the Prerun hooks are done.
Update may come at any moment until Destroy begins, one at a time. PreKill
comes once, before the first kill of every task. Postrun comes once every
task is dead, Shutdown instead when the agent stops; Destroy after Postrun.
hooks.go says what may overlap what and when each is skipped; a new hook
should read it first.

Within the allocation the tasks follow the group's lifecycle (lifecycle.go):
prestart tasks first, main tasks once every prestart task has finished
successfully (or, for a sidecar, started), poststart tasks once the main tasks have started,
poststop tasks once every other task is dead. A failed task or a dead
leader takes the others down; when the main tasks are dead the sidecars
go.

# Phases

A runner goes through five phases (phase.go): created, setting up (the
Prerun hooks), running, killing, ending (the Postrun or Shutdown hooks).
Only while running or killing is a kill carried out; before, it is
recorded and carried out once the Prerun hooks are done; after, it is
recorded for the next agent, if any task is still alive.

# Kill reasons

When every task must go, the runner kills them for a reason, and records
the reason in its persisted state before it kills anything
(state.AllocRunnerState.KillReason). Everything the kill does follows from
the phase and the reason: planKill (kill_plan.go), a pure function of the
phase, the reason recorded, the tasks' states and the reason asked, says
what to record and which tasks to kill in which order, through the pure
functions of kill_reason.go:

	reason            poststop tasks   Killing event says                      the allocation ends
	stopped           still run        (the default)                           as its tasks' states say
	not_runnable      never start      (the default)                           as its tasks' states say
	destroyed         never start      (the default)                           as its tasks' states say
	max_run_duration  never start      allocation exceeded max_run_duration    the group's max_run_outcome (complete, or failed), with that description

A stop comes from the servers (a desired stop or evict); not_runnable is a
stop of an allocation none of whose tasks has started; destroyed comes
from Destroy; max_run_duration from the hook, at CreateTime plus the
budget (structs.Allocation.MaxRun, the one definition of the deadline).
Only one reason is in force: a kill that lets poststop tasks run is
overtaken by one that does not, and any other later reason is ignored
(nextKillReason). So an expired deadline is never turned into a stop, and
a stop never runs the poststop tasks of an allocation that outlived its
budget.

A reason this agent does not know, recorded by a newer one, still kills
every task and starts nothing more. New reasons (a lost node) are added
as new values; a stored value never changes its meaning.

A task's own max_run_duration is no kill reason of the allocation: its
task runner kills that task alone (taskrunner/max_run.go), records it in
the task's state (MaxRunExceeded, with the anchor RunnerStartedAt), and
the lifecycle goes on as if the task had ended by itself. Both deadlines,
the group's and the task's, run on internal/deadline's Timer, which keeps
no goroutine while it waits.

# The restore contract

The runner persists, through the state DB: the allocation as it last got
it, its own state (the kill reason), and for each task the task state and
the task runner's local state, the driver's handle of the run in progress
included. An agent that starts again with the same data dir creates a
runner per stored allocation, calls Restore, then Run, and the runner

  - re-attaches to each task still running through its driver's handle,
    rather than starting it again; a task that ended while the agent was
    down is recorded as it ended, and one whose run cannot be recovered
    goes to its restart policy;
  - keeps the deadline where it was: CreateTime does not move, so the
    max_run_duration hook arms the same instant, and enforces at once a
    deadline that passed while the agent was down;
  - finishes a kill an earlier agent recorded, whatever the clock says,
    shutdown_delay and all, and starts no task (but a stop's poststop
    tasks, after the others); an allocation that outlived its budget
    still ends complete with its description;
  - reads the state every earlier agent wrote: before kill reasons, an
    expired deadline was stored as {"MaxRunDurationExceeded":true}, which
    reads as max_run_duration (testdata/restore-v1 is such a data dir, and
    restore_old_datadir_test.go restores it).

Shutdown leaves every task running for that next agent: a kill under way
stops before its first task kill, and a destroy cut short by the agent
stopping leaves the directory and state in place, with the kill recorded.

# What it owns, and what it must not import

It owns one allocation's run on a client: the order of its tasks, the
kill of every task and its reason, the allocation's client status, its
runner hooks (the allocation directory's, the group's max_run_duration
and its metrics) and the runner's persisted state. One task's run is
taskrunner's; the directory's layout is client/allocdir's; which
allocations run here, and the node's own state, are the client's.

It imports client/allocdir, client/cni, client/state, its taskrunner, drivers (the
catalog, never one driver's package), structs and internal/; it must not
import the client, which drives it, nor any server, API or agent package
(client/imports_test.go holds the client tree to this).
*/
package allocrunner
