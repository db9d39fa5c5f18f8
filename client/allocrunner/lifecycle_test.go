package allocrunner

import (
	"slices"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func lcTask(name, hook string, sidecar bool) *structs.Task {
	t := &structs.Task{Name: name}
	if hook != "" {
		t.Lifecycle = &structs.TaskLifecycle{Hook: hook, Sidecar: sidecar}
	}
	return t
}

var (
	t0        = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	pending   = &structs.TaskState{State: structs.TaskStatePending}
	running   = &structs.TaskState{State: structs.TaskStateRunning, StartedAt: t0}
	succeeded = &structs.TaskState{State: structs.TaskStateDead, StartedAt: t0, FinishedAt: t0}
	failed    = &structs.TaskState{State: structs.TaskStateDead, StartedAt: t0, FinishedAt: t0, Failed: true}
	restarted = &structs.TaskState{State: structs.TaskStatePending, StartedAt: t0, Restarts: 1}
	never     = &structs.TaskState{State: structs.TaskStateDead, FinishedAt: t0}
	timedOut  = &structs.TaskState{State: structs.TaskStateDead, StartedAt: t0, FinishedAt: t0, MaxRunExceeded: true}
)

func TestGroupStates_MayStart(t *testing.T) {
	pre := lcTask("pre", structs.TaskLifecycleHookPrestart, false)
	side := lcTask("side", structs.TaskLifecycleHookPrestart, true)
	main := lcTask("main", "", false)
	main2 := lcTask("main2", "", false)
	post := lcTask("post", structs.TaskLifecycleHookPoststart, false)
	stop := lcTask("stop", structs.TaskLifecycleHookPoststop, false)
	tasks := []*structs.Task{pre, side, main, main2, post, stop}

	cases := []struct {
		name        string
		states      map[string]*structs.TaskState
		runPoststop bool
		want        []string
	}{
		{
			name: "at first only prestart tasks",
			want: []string{"pre", "side"},
		},
		{
			name:   "mains wait for the sidecar to start",
			states: map[string]*structs.TaskState{"pre": succeeded, "side": pending},
			want:   []string{"pre", "side"},
		},
		{
			name:   "mains wait for the prestart task to finish",
			states: map[string]*structs.TaskState{"pre": running, "side": running},
			want:   []string{"pre", "side"},
		},
		{
			name:   "a failed prestart task keeps the mains back",
			states: map[string]*structs.TaskState{"pre": failed, "side": running},
			want:   []string{"pre", "side"},
		},
		{
			name:   "prestart done and sidecar up: mains",
			states: map[string]*structs.TaskState{"pre": succeeded, "side": running},
			want:   []string{"pre", "side", "main", "main2"},
		},
		{
			name:   "a sidecar restarting after a start still counts as started",
			states: map[string]*structs.TaskState{"pre": succeeded, "side": restarted},
			want:   []string{"pre", "side", "main", "main2"},
		},
		{
			name:   "poststart waits for every main to start",
			states: map[string]*structs.TaskState{"pre": succeeded, "side": running, "main": running},
			want:   []string{"pre", "side", "main", "main2"},
		},
		{
			name:   "mains started: poststart",
			states: map[string]*structs.TaskState{"pre": succeeded, "side": running, "main": running, "main2": succeeded},
			want:   []string{"pre", "side", "main", "main2", "post"},
		},
		{
			name:        "poststop waits for every other task",
			states:      map[string]*structs.TaskState{"pre": succeeded, "side": running, "main": succeeded, "main2": succeeded, "post": succeeded},
			runPoststop: true,
			want:        []string{"pre", "side", "main", "main2", "post"},
		},
		{
			name:        "all others dead: poststop",
			states:      map[string]*structs.TaskState{"pre": succeeded, "side": succeeded, "main": failed, "main2": succeeded, "post": never},
			runPoststop: true,
			want:        []string{"pre", "side", "main", "main2", "post", "stop"},
		},
		{
			name:   "poststop not when the kill forbids it",
			states: map[string]*structs.TaskState{"pre": succeeded, "side": succeeded, "main": succeeded, "main2": succeeded, "post": succeeded},
			want:   []string{"pre", "side", "main", "main2", "post"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := groupStates{tasks: tasks, states: c.states}
			var got []string
			for _, task := range tasks {
				if g.mayStart(task, c.runPoststop) {
					got = append(got, task.Name)
				}
			}
			must.Eq(t, c.want, got)
		})
	}
}

func TestGroupStates_Kills(t *testing.T) {
	pre := lcTask("pre", structs.TaskLifecycleHookPrestart, false)
	side := lcTask("side", structs.TaskLifecycleHookPrestart, true)
	main := lcTask("main", "", false)
	leader := lcTask("leader", "", false)
	leader.Leader = true
	post := lcTask("post", structs.TaskLifecycleHookPoststart, false)
	postSide := lcTask("postside", structs.TaskLifecycleHookPoststart, true)
	stop := lcTask("stop", structs.TaskLifecycleHookPoststop, false)
	main2 := lcTask("main2", "", false)

	cases := []struct {
		name      string
		tasks     []*structs.Task
		states    map[string]*structs.TaskState
		want      []string
		wantEvent string
	}{
		{
			name:   "all well: nothing",
			tasks:  []*structs.Task{pre, side, main, stop},
			states: map[string]*structs.TaskState{"pre": succeeded, "side": running, "main": running},
		},
		{
			name:      "a failed main kills the live others but poststop",
			tasks:     []*structs.Task{side, main, leader, stop},
			states:    map[string]*structs.TaskState{"side": running, "main": failed, "leader": running},
			want:      []string{"side", "leader"},
			wantEvent: structs.TaskSiblingFailed,
		},
		{
			name:      "a failed prestart kills the waiting mains",
			tasks:     []*structs.Task{pre, side, main, stop},
			states:    map[string]*structs.TaskState{"pre": failed, "side": running, "main": pending},
			want:      []string{"side", "main"},
			wantEvent: structs.TaskSiblingFailed,
		},
		{
			name:      "a dead leader kills the others",
			tasks:     []*structs.Task{side, main, leader, post, stop},
			states:    map[string]*structs.TaskState{"side": running, "main": running, "leader": succeeded, "post": running},
			want:      []string{"side", "main", "post"},
			wantEvent: structs.TaskLeaderDead,
		},
		{
			name:      "dead mains kill the sidecars",
			tasks:     []*structs.Task{pre, side, main, post, postSide, stop},
			states:    map[string]*structs.TaskState{"pre": succeeded, "side": running, "main": succeeded, "post": running, "postside": running},
			want:      []string{"side", "postside"},
			wantEvent: structs.TaskMainDead,
		},
		{
			name:      "dead mains kill a poststart task that can never start",
			tasks:     []*structs.Task{main, main2, post},
			states:    map[string]*structs.TaskState{"main": succeeded, "main2": never, "post": pending},
			want:      []string{"post"},
			wantEvent: structs.TaskMainDead,
		},
		{
			name:   "dead mains leave a poststart task that may still start",
			tasks:  []*structs.Task{main, post},
			states: map[string]*structs.TaskState{"main": succeeded, "post": pending},
		},
		{
			name:   "a group without main tasks kills nothing",
			tasks:  []*structs.Task{pre, stop},
			states: map[string]*structs.TaskState{"pre": pending},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := groupStates{tasks: c.tasks, states: c.states}
			var got []string
			for _, k := range g.kills() {
				got = append(got, k.task)
				must.Eq(t, c.wantEvent, k.event().Type)
			}
			slices.Sort(got)
			want := slices.Clone(c.want)
			slices.Sort(want)
			must.Eq(t, want, got)
		})
	}
}
