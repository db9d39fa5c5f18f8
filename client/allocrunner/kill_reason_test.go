package allocrunner

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// newerReason stands for a reason written by a newer agent.
const newerReason state.KillReason = "lost"

func TestNextKillReason(t *testing.T) {
	var (
		none        state.KillReason
		stopped     = state.KillReasonStopped
		destroyed   = state.KillReasonDestroyed
		notRunnable = state.KillReasonNotRunnable
		maxRun      = state.KillReasonMaxRunDuration
	)
	cases := []struct {
		current, reason, want state.KillReason
	}{
		{none, stopped, stopped},
		{none, maxRun, maxRun},
		{none, newerReason, newerReason},
		// A kill that runs poststop tasks is overtaken by one that does not.
		{stopped, maxRun, maxRun},
		{stopped, destroyed, destroyed},
		{stopped, notRunnable, notRunnable},
		{stopped, newerReason, newerReason},
		{stopped, stopped, stopped},
		// Otherwise the first reason stays.
		{maxRun, stopped, maxRun},
		{maxRun, destroyed, maxRun},
		{destroyed, maxRun, destroyed},
		{destroyed, stopped, destroyed},
		{notRunnable, stopped, notRunnable},
		{newerReason, stopped, newerReason},
		{newerReason, maxRun, newerReason},
	}
	for _, tc := range cases {
		must.Eq(t, tc.want, nextKillReason(tc.current, tc.reason), must.Sprintf("%q then %q", tc.current, tc.reason))
	}
}

func TestKillReasonPolicy(t *testing.T) {
	cases := []struct {
		reason       state.KillReason
		runsPoststop bool
		message      string
		// status and description once every task stopped; empty: the
		// tasks' states decide.
		status, description string
	}{
		{reason: state.KillReasonStopped, runsPoststop: true},
		{reason: state.KillReasonDestroyed},
		{reason: state.KillReasonNotRunnable},
		{reason: state.KillReasonMaxRunDuration, message: structs.AllocTimeoutReasonMaxRunDuration,
			status: structs.AllocClientStatusComplete, description: structs.AllocTimeoutReasonMaxRunDuration},
		{reason: newerReason},
	}
	for _, tc := range cases {
		t.Run(string(tc.reason), func(t *testing.T) {
			must.Eq(t, tc.runsPoststop, runsPoststop(tc.reason))
			must.Eq(t, tc.message, killEventMessage(tc.reason))
			status, description, ok := killedClientStatus(tc.reason, structs.AllocClientStatusComplete)
			must.Eq(t, tc.status != "", ok)
			must.Eq(t, tc.status, status)
			must.Eq(t, tc.description, description)
			// max_run_outcome = "failed" changes the status, not the
			// description.
			status, description, ok = killedClientStatus(tc.reason, structs.AllocClientStatusFailed)
			must.Eq(t, tc.status != "", ok)
			if ok {
				must.Eq(t, structs.AllocClientStatusFailed, status)
			}
			must.Eq(t, tc.description, description)
		})
	}
}
