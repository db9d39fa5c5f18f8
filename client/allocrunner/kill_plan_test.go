package allocrunner

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// A group of every lifecycle kind, midway: its prestart task done, the
// sidecar, the main task and the poststart task running, the poststop
// task waiting for them.
var midway = []taskView{
	{name: "init", dead: true},
	{name: "proxy"},
	{name: "web"},
	{name: "notify"},
	{name: "cleanup", poststop: true},
}

// Every task dead but the poststop one, which a stop lets run.
var cleaningUp = []taskView{
	{name: "init", dead: true},
	{name: "proxy", dead: true},
	{name: "web", dead: true},
	{name: "notify", dead: true},
	{name: "cleanup", poststop: true},
}

var allDone = []taskView{{name: "web", dead: true}, {name: "cleanup", poststop: true, dead: true}}

func TestPlanKill(t *testing.T) {
	var (
		stopped     = state.KillReasonStopped
		destroyed   = state.KillReasonDestroyed
		notRunnable = state.KillReasonNotRunnable
		maxRun      = state.KillReasonMaxRunDuration
	)
	const exceeded = structs.AllocTimeoutReasonMaxRunDuration
	cases := []struct {
		name     string
		phase    phase
		recorded state.KillReason
		tasks    []taskView
		asked    state.KillReason
		want     killPlan
		ok       bool
	}{
		// The first kill carried out: PreKill and shutdown_delay, then the
		// tasks.
		{name: "a stop lets the poststop task run after the others",
			phase: phaseRunning, tasks: midway, asked: stopped, ok: true,
			want: killPlan{reason: stopped, record: true, carryOut: true, first: true, kill: []string{"proxy", "web", "notify"}}},
		{name: "max_run_duration: the poststop task never starts",
			phase: phaseRunning, tasks: midway, asked: maxRun, ok: true,
			want: killPlan{reason: maxRun, record: true, carryOut: true, first: true, kill: []string{"proxy", "web", "notify", "cleanup"}, message: exceeded}},
		{name: "destroyed: the poststop task never starts",
			phase: phaseRunning, tasks: midway, asked: destroyed, ok: true,
			want: killPlan{reason: destroyed, record: true, carryOut: true, first: true, kill: []string{"proxy", "web", "notify", "cleanup"}}},
		{name: "not runnable: nothing ever starts",
			phase: phaseRunning, tasks: midway, asked: notRunnable, ok: true,
			want: killPlan{reason: notRunnable, record: true, carryOut: true, first: true, kill: []string{"proxy", "web", "notify", "cleanup"}}},
		{name: "a reason of a newer agent starts nothing more",
			phase: phaseRunning, tasks: midway, asked: newerReason, ok: true,
			want: killPlan{reason: newerReason, record: true, carryOut: true, first: true, kill: []string{"proxy", "web", "notify", "cleanup"}}},

		// A kill recorded earlier (by an earlier agent, or before the
		// Prerun hooks were done) is carried out as recorded.
		{name: "a recorded kill is carried out once running",
			phase: phaseRunning, recorded: maxRun, tasks: midway, asked: maxRun, ok: true,
			want: killPlan{reason: maxRun, carryOut: true, first: true, kill: []string{"proxy", "web", "notify", "cleanup"}, message: exceeded}},
		{name: "a recorded max_run_duration is not turned into a stop",
			phase: phaseRunning, recorded: maxRun, tasks: midway, asked: stopped, ok: true,
			want: killPlan{reason: maxRun, carryOut: true, first: true, kill: []string{"proxy", "web", "notify", "cleanup"}, message: exceeded}},
		{name: "a recorded stop is overtaken by a destroy",
			phase: phaseRunning, recorded: stopped, tasks: midway, asked: destroyed, ok: true,
			want: killPlan{reason: destroyed, record: true, carryOut: true, first: true, kill: []string{"proxy", "web", "notify", "cleanup"}}},

		// While killing: only a reason that overtakes the one in force
		// does anything, without PreKill or shutdown_delay again.
		{name: "max_run_duration overtakes a stop: the poststop task is killed",
			phase: phaseKilling, recorded: stopped, tasks: cleaningUp, asked: maxRun, ok: true,
			want: killPlan{reason: maxRun, record: true, carryOut: true, kill: []string{"cleanup"}, message: exceeded}},
		{name: "a destroy overtakes a stop",
			phase: phaseKilling, recorded: stopped, tasks: midway, asked: destroyed, ok: true,
			want: killPlan{reason: destroyed, record: true, carryOut: true, kill: []string{"proxy", "web", "notify", "cleanup"}}},
		{name: "a stop after max_run_duration does nothing",
			phase: phaseKilling, recorded: maxRun, tasks: midway, asked: stopped},
		{name: "a destroy after max_run_duration does nothing",
			phase: phaseKilling, recorded: maxRun, tasks: midway, asked: destroyed},
		{name: "a second stop does nothing",
			phase: phaseKilling, recorded: stopped, tasks: cleaningUp, asked: stopped},

		// Outside running and killing a kill is only recorded.
		{name: "before Run: recorded",
			phase: phaseCreated, tasks: midway, asked: destroyed, ok: true,
			want: killPlan{reason: destroyed, record: true}},
		{name: "during the Prerun hooks: recorded",
			phase: phaseSettingUp, tasks: midway, asked: maxRun, ok: true,
			want: killPlan{reason: maxRun, record: true}},
		{name: "during the Prerun hooks, the reason recorded already: nothing",
			phase: phaseSettingUp, recorded: maxRun, tasks: midway, asked: maxRun},
		{name: "ending with tasks alive (the agent stops): recorded for the next agent",
			phase: phaseEnding, recorded: stopped, tasks: cleaningUp, asked: maxRun, ok: true,
			want: killPlan{reason: maxRun, record: true}},
		{name: "ending, the reason unchanged: nothing",
			phase: phaseEnding, recorded: maxRun, tasks: midway, asked: stopped},

		// Every task dead: nothing to kill, nothing to record.
		{name: "every task dead", phase: phaseRunning, tasks: allDone, asked: maxRun},
		{name: "every task dead, before Run", phase: phaseCreated, tasks: allDone, asked: destroyed},
		{name: "no task", phase: phaseRunning, asked: stopped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := planKill(tc.phase, tc.recorded, tc.tasks, tc.asked)
			must.Eq(t, tc.ok, ok)
			must.Eq(t, tc.want, got, must.Sprintf("got %+v", got))
		})
	}
}

func TestReasonOnStart(t *testing.T) {
	cases := []struct {
		name                    string
		recorded                state.KillReason
		desiredStop, anyStarted bool
		want                    state.KillReason
	}{
		{name: "nothing to kill"},
		{name: "a recorded kill", recorded: state.KillReasonMaxRunDuration, anyStarted: true, want: state.KillReasonMaxRunDuration},
		{name: "stopped before any task started", desiredStop: true, want: state.KillReasonNotRunnable},
		{name: "stopped once a task started", desiredStop: true, anyStarted: true, want: state.KillReasonStopped},
		{name: "stopped, after max_run_duration", recorded: state.KillReasonMaxRunDuration, desiredStop: true, anyStarted: true, want: state.KillReasonMaxRunDuration},
		{name: "a recorded stop, not started yet", recorded: state.KillReasonStopped, desiredStop: true, want: state.KillReasonNotRunnable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, reasonOnStart(tc.recorded, tc.desiredStop, tc.anyStarted))
		})
	}
}
