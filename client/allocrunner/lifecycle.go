package allocrunner

import (
	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/structs"
)

// The group's lifecycle, as the alloc runner coordinates it:
//
//   - prestart tasks start at once; the main tasks wait until every
//     non-sidecar prestart task has finished successfully and every prestart
//     sidecar has started;
//   - poststart tasks start once every main task has started;
//   - poststop tasks start once every other task is dead;
//   - when a task fails, the other tasks are killed (poststop tasks still
//     run after them);
//   - when the leader task dies, the other tasks are killed;
//   - when every main task is dead, the sidecars, and any task that never
//     started and now never can, are killed.

// groupStates is the group's tasks and their current states.
type groupStates struct {
	tasks  []*structs.Task
	states map[string]*structs.TaskState
}

func (g groupStates) state(name string) *structs.TaskState {
	if s := g.states[name]; s != nil {
		return s
	}
	return &structs.TaskState{State: structs.TaskStatePending}
}

func isDead(s *structs.TaskState) bool { return s.State == structs.TaskStateDead }

func hasStarted(s *structs.TaskState) bool { return !s.StartedAt.IsZero() }

func isSidecar(t *structs.Task) bool { return t.Lifecycle != nil && t.Lifecycle.Sidecar }

// mayStart reports whether the lifecycle lets task start now. Poststop
// tasks also need runPoststop.
func (g groupStates) mayStart(task *structs.Task, runPoststop bool) bool {
	switch {
	case task.IsPrestart():
		return true
	case task.IsPoststart():
		return g.all(func(t *structs.Task, s *structs.TaskState) bool {
			return !t.IsMain() || hasStarted(s)
		})
	case task.IsPoststop():
		return runPoststop && g.all(func(t *structs.Task, s *structs.TaskState) bool {
			return t.IsPoststop() || isDead(s)
		})
	default:
		return g.all(func(t *structs.Task, s *structs.TaskState) bool {
			if !t.IsPrestart() {
				return true
			}
			if isSidecar(t) {
				return hasStarted(s)
			}
			return isDead(s) && !s.Failed
		})
	}
}

// all reports whether ok holds for every task.
func (g groupStates) all(ok func(*structs.Task, *structs.TaskState) bool) bool {
	for _, t := range g.tasks {
		if !ok(t, g.state(t.Name)) {
			return false
		}
	}
	return true
}

// lifecycleKill is a task the lifecycle wants killed, and why.
type lifecycleKill struct {
	task  string
	event func() *structs.TaskEvent
}

// kills returns the tasks the lifecycle wants killed now: on a failed task
// every other live task but the poststop ones; on a dead leader likewise;
// once every main task is dead, the sidecars and the tasks that never
// started and now never can. Poststop tasks are never killed here: they run after the rest.
func (g groupStates) kills() []lifecycleKill {
	for _, t := range g.tasks {
		if s := g.state(t.Name); !t.IsPoststop() && isDead(s) && s.Failed {
			name := t.Name
			return g.liveExcept(name, func() *structs.TaskEvent { return taskrunner.NewSiblingFailedEvent(name) })
		}
	}
	for _, t := range g.tasks {
		if t.Leader && isDead(g.state(t.Name)) {
			return g.liveExcept(t.Name, taskrunner.NewLeaderDeadEvent)
		}
	}
	if !g.mainsDead() {
		return nil
	}
	var out []lifecycleKill
	for _, t := range g.tasks {
		s := g.state(t.Name)
		if t.IsPoststop() || t.IsMain() || isDead(s) {
			continue
		}
		// A task that never started is killed only if it never can: a
		// poststart task whose main tasks all started still runs.
		if isSidecar(t) || (!hasStarted(s) && !g.mayStart(t, false)) {
			out = append(out, lifecycleKill{task: t.Name, event: taskrunner.NewMainDeadEvent})
		}
	}
	return out
}

// liveExcept lists every live task but the poststop ones and the one named.
func (g groupStates) liveExcept(name string, event func() *structs.TaskEvent) []lifecycleKill {
	var out []lifecycleKill
	for _, t := range g.tasks {
		if t.Name == name || t.IsPoststop() || isDead(g.state(t.Name)) {
			continue
		}
		out = append(out, lifecycleKill{task: t.Name, event: event})
	}
	return out
}

// mainsDead reports whether the group has main tasks and all are dead.
func (g groupStates) mainsDead() bool {
	mains := 0
	for _, t := range g.tasks {
		if !t.IsMain() {
			continue
		}
		mains++
		if !isDead(g.state(t.Name)) {
			return false
		}
	}
	return mains > 0
}
