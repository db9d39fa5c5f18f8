package allocrunner

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// Task states with their events, as a deadline's kill leaves them: one
// that was waiting to restart after its driver failed, one that had failed
// for good, and one that had recovered from a failure before the kill
// (whose own Terminated event, on the kill's signal, is no failure).
var (
	failingKilled = &structs.TaskState{State: structs.TaskStateDead, FinishedAt: t0, Events: []*structs.TaskEvent{
		{Type: structs.TaskDriverFailure, DisplayMessage: "Failed to pull image", FailsTask: false},
		{Type: structs.TaskRestarting},
		{Type: structs.TaskKilling},
		{Type: structs.TaskKilled},
	}}
	failedForGood = &structs.TaskState{State: structs.TaskStateDead, StartedAt: t0, FinishedAt: t0, Failed: true, Events: []*structs.TaskEvent{
		{Type: structs.TaskStarted},
		{Type: structs.TaskTerminated, ExitCode: 2},
		{Type: structs.TaskNotRestarting, FailsTask: true},
	}}
	recoveredKilled = &structs.TaskState{State: structs.TaskStateDead, StartedAt: t0, FinishedAt: t0, Events: []*structs.TaskEvent{
		{Type: structs.TaskStarted},
		{Type: structs.TaskTerminated, ExitCode: 1},
		{Type: structs.TaskRestarting},
		{Type: structs.TaskStarted},
		{Type: structs.TaskKilling},
		{Type: structs.TaskTerminated, ExitCode: 137, Signal: 9},
	}}
)

func TestClientStatus(t *testing.T) {
	a, b := lcTask("a", "", false), lcTask("b", "", false)
	tasks := []*structs.Task{a, b}
	exceeded := state.KillReasonMaxRunDuration

	cases := []struct {
		name     string
		states   map[string]*structs.TaskState
		server   string
		kill     state.KillReason
		outcome  string
		want     string
		wantDesc string
	}{
		{name: "nothing started", want: structs.AllocClientStatusPending, wantDesc: descPending},
		{name: "one running", states: map[string]*structs.TaskState{"a": running}, want: structs.AllocClientStatusRunning, wantDesc: descRunning},
		{name: "running and done", states: map[string]*structs.TaskState{"a": running, "b": succeeded}, want: structs.AllocClientStatusRunning, wantDesc: descRunning},
		{name: "restarting is still running", states: map[string]*structs.TaskState{"a": restarted, "b": succeeded}, want: structs.AllocClientStatusRunning, wantDesc: descRunning},
		{name: "poststop about to start is still running", states: map[string]*structs.TaskState{"a": succeeded, "b": pending}, want: structs.AllocClientStatusRunning, wantDesc: descRunning},
		{name: "waiting to start is pending", states: map[string]*structs.TaskState{"a": pending, "b": pending}, want: structs.AllocClientStatusPending, wantDesc: descPending},
		{name: "all done", states: map[string]*structs.TaskState{"a": succeeded, "b": never}, want: structs.AllocClientStatusComplete, wantDesc: descComplete},
		{name: "a failure wins over running", states: map[string]*structs.TaskState{"a": failed, "b": running}, want: structs.AllocClientStatusFailed, wantDesc: descFailed},
		{name: "a failure wins over done", states: map[string]*structs.TaskState{"a": failed, "b": succeeded}, want: structs.AllocClientStatusFailed, wantDesc: descFailed},
		{name: "lost stays lost", states: map[string]*structs.TaskState{"a": running}, server: structs.AllocClientStatusLost, want: structs.AllocClientStatusLost, wantDesc: descLost},
		{
			name: "max_run_duration: still stopping", states: map[string]*structs.TaskState{"a": running, "b": succeeded}, kill: exceeded,
			want: structs.AllocClientStatusRunning, wantDesc: descRunning,
		},
		{
			name: "max_run_duration: all stopped", states: map[string]*structs.TaskState{"a": succeeded, "b": never}, kill: exceeded,
			want: structs.AllocClientStatusComplete, wantDesc: structs.AllocTimeoutReasonMaxRunDuration,
		},
		{
			name: "max_run_duration while a task waits to restart after a failure", states: map[string]*structs.TaskState{"a": failingKilled, "b": never}, kill: exceeded,
			want: structs.AllocClientStatusFailed, wantDesc: structs.AllocTimeoutWhileFailing("a", "Failed to pull image"),
		},
		{
			name: "max_run_duration after a task failed for good", states: map[string]*structs.TaskState{"a": failedForGood, "b": succeeded}, kill: exceeded,
			want: structs.AllocClientStatusFailed, wantDesc: structs.AllocTimeoutWhileFailing("a", "Exit Code: 2"),
		},
		{
			name: "max_run_duration after a task recovered from a failure", states: map[string]*structs.TaskState{"a": recoveredKilled, "b": succeeded}, kill: exceeded,
			want: structs.AllocClientStatusComplete, wantDesc: structs.AllocTimeoutReasonMaxRunDuration,
		},
		{
			name: "max_run_duration, outcome failed, while a task was failing", states: map[string]*structs.TaskState{"a": failingKilled, "b": never}, kill: exceeded,
			outcome: structs.AllocClientStatusFailed, want: structs.AllocClientStatusFailed, wantDesc: structs.AllocTimeoutWhileFailing("a", "Failed to pull image"),
		},
		{
			name: "max_run_duration, outcome failed: all stopped", states: map[string]*structs.TaskState{"a": succeeded, "b": never}, kill: exceeded,
			outcome: structs.AllocClientStatusFailed, want: structs.AllocClientStatusFailed, wantDesc: structs.AllocTimeoutReasonMaxRunDuration,
		},
		{
			name: "max_run_duration, outcome failed: still stopping", states: map[string]*structs.TaskState{"a": running, "b": succeeded}, kill: exceeded,
			outcome: structs.AllocClientStatusFailed, want: structs.AllocClientStatusRunning, wantDesc: descRunning,
		},
		{
			name: "a task's own limit: running on", states: map[string]*structs.TaskState{"a": timedOut, "b": running},
			want: structs.AllocClientStatusRunning, wantDesc: descRunning,
		},
		{
			name: "a task's own limit: all done", states: map[string]*structs.TaskState{"a": timedOut, "b": succeeded},
			want: structs.AllocClientStatusComplete, wantDesc: structs.TaskTimeoutReasonMaxRunDuration,
		},
		{
			name: "a task's own limit, outcome failed: all done", states: map[string]*structs.TaskState{"a": timedOut, "b": succeeded},
			outcome: structs.AllocClientStatusFailed, want: structs.AllocClientStatusFailed, wantDesc: structs.TaskTimeoutReasonMaxRunDuration,
		},
		{
			name: "a task's own limit: a failure wins", states: map[string]*structs.TaskState{"a": timedOut, "b": failed},
			outcome: structs.AllocClientStatusFailed, want: structs.AllocClientStatusFailed, wantDesc: descFailed,
		},
		{
			name: "a task's own limit, then the group's: the group's", states: map[string]*structs.TaskState{"a": timedOut, "b": succeeded}, kill: exceeded,
			want: structs.AllocClientStatusComplete, wantDesc: structs.AllocTimeoutReasonMaxRunDuration,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcome := c.outcome
			if outcome == "" {
				outcome = structs.AllocClientStatusComplete
			}
			status, desc := clientStatus(groupStates{tasks: tasks, states: c.states}, c.server, c.kill, outcome)
			must.Eq(t, c.want, status)
			must.Eq(t, c.wantDesc, desc)
		})
	}
}
