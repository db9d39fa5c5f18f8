package allocrunner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/structs"
)

// withOwnLimit gives task a max_run_duration of its own.
func withOwnLimit(task *structs.Task, d time.Duration) *structs.Task {
	task.MaxRunDuration = &d
	return task
}

// mustKilledForOwnLimit checks that the task died of its own
// max_run_duration at want.
func mustKilledForOwnLimit(t *testing.T, ts *structs.TaskState, name string, want time.Time) {
	t.Helper()
	must.Eq(t, structs.TaskStateDead, ts.State, must.Sprint(name))
	must.True(t, ts.MaxRunExceeded, must.Sprint(name))
	must.False(t, ts.Failed, must.Sprint(name))
	must.Eq(t, want, ts.FinishedAt, must.Sprint(name))
	killing := tasktest.LastEvent(ts, structs.TaskKilling)
	must.NotNil(t, killing, must.Sprintf("%s has no Killing event", name))
	must.Eq(t, structs.TaskTimeoutReasonMaxRunDuration, killing.DisplayMessage, must.Sprint(name))
}

func TestAllocRunner_TaskMaxRunKillsOnlyThatTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(
			withOwnLimit(mockTask("slow", map[string]any{"run_for": "1h"}), 5*time.Second),
			mockTask("sibling", map[string]any{"run_for": "20s"}),
		)
		h := newARHarness(t, alloc)
		start := time.Now()
		go h.ar.Run()

		time.Sleep(10 * time.Second)
		a := h.ar.Alloc()
		mustKilledForOwnLimit(t, a.TaskStates["slow"], "slow", start.Add(5*time.Second))
		must.Eq(t, structs.TaskStateRunning, a.TaskStates["sibling"].State, must.Sprint("the sibling goes on"))
		must.Eq(t, structs.AllocClientStatusRunning, a.ClientStatus)

		<-h.ar.WaitCh()
		a = h.ar.Alloc()
		sibling := a.TaskStates["sibling"]
		must.Eq(t, start.Add(20*time.Second), sibling.FinishedAt)
		must.Nil(t, tasktest.LastEvent(sibling, structs.TaskKilling))
		must.False(t, sibling.MaxRunExceeded)
		must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
		must.Eq(t, structs.TaskTimeoutReasonMaxRunDuration, a.ClientDescription)
		rs, err := h.db.GetAllocRunnerState(a.ID)
		must.NoError(t, err)
		must.True(t, rs == nil || rs.KillReason == "", must.Sprint("a task's limit is no kill of the allocation"))
	})
}

func TestAllocRunner_TaskAndGroupMaxRunEarlierWins(t *testing.T) {
	cases := []struct {
		name string
		own  time.Duration
		// wantOwn is whether the task's own limit kills it; otherwise the
		// group's does, at 10s.
		wantOwn  bool
		wantDead time.Duration
	}{
		{name: "the task's limit first", own: 4 * time.Second, wantOwn: true, wantDead: 6 * time.Second},
		{name: "the group's limit first", own: 30 * time.Second, wantDead: 10 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The task starts after a 2s prestart task: its own budget
				// counts from then, the group's from the creation.
				alloc := budgeted(testAlloc(
					withLifecycle(mockTask("init", map[string]any{"run_for": "2s"}), structs.TaskLifecycleHookPrestart, false),
					withOwnLimit(mockTask("main", map[string]any{"run_for": "1h"}), tc.own),
					mockTask("other", map[string]any{"run_for": "1h"}),
				), 10*time.Second)
				h := newARHarness(t, alloc)
				start := time.Now()
				runToEnd(h.ar)

				a := h.ar.Alloc()
				main := a.TaskStates["main"]
				must.Eq(t, start.Add(2*time.Second), main.RunnerStartedAt)
				if tc.wantOwn {
					mustKilledForOwnLimit(t, main, "main", start.Add(tc.wantDead))
				} else {
					must.False(t, main.MaxRunExceeded)
					must.Eq(t, start.Add(tc.wantDead), main.FinishedAt)
					mustKilledForMaxRun(t, main, "main")
				}
				// The group's limit still ends the allocation.
				mustExceeded(t, h)
				mustKilledForMaxRun(t, a.TaskStates["other"], "other")
				must.Eq(t, start.Add(10*time.Second), a.TaskStates["other"].FinishedAt)
			})
		})
	}
}

func TestAllocRunner_MaxRunOutcomeFailed(t *testing.T) {
	cases := []struct {
		name     string
		alloc    func() *structs.Allocation
		wantDesc string
	}{
		{name: "the group's deadline", alloc: func() *structs.Allocation {
			return budgeted(testAlloc(
				mockTask("main", map[string]any{"run_for": "1h"}),
				mockTask("quick", map[string]any{"run_for": "2s"}),
			), 10*time.Second)
		}, wantDesc: structs.AllocTimeoutReasonMaxRunDuration},
		{name: "a task's own deadline", alloc: func() *structs.Allocation {
			return testAlloc(
				withOwnLimit(mockTask("main", map[string]any{"run_for": "1h"}), 10*time.Second),
				mockTask("quick", map[string]any{"run_for": "2s"}),
			)
		}, wantDesc: structs.TaskTimeoutReasonMaxRunDuration},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				alloc := tc.alloc()
				alloc.Job.TaskGroups[0].MaxRunOutcome = structs.MaxRunOutcomeFailed
				h := newARHarness(t, alloc)
				start := time.Now()
				go h.ar.Run()

				time.Sleep(10*time.Second - time.Nanosecond)
				must.Eq(t, structs.AllocClientStatusRunning, h.ar.Alloc().ClientStatus)
				<-h.ar.WaitCh()

				a := h.ar.Alloc()
				must.Eq(t, structs.AllocClientStatusFailed, a.ClientStatus)
				must.Eq(t, tc.wantDesc, a.ClientDescription)
				must.Eq(t, a.ClientStatus, h.handler.last().ClientStatus)
				main := a.TaskStates["main"]
				must.Eq(t, start.Add(10*time.Second), main.FinishedAt)
				must.False(t, main.Failed, must.Sprint("the allocation fails, not the task"))
				must.Eq(t, 0, tasktest.CountEvents(main, structs.TaskRestarting))
				quick := a.TaskStates["quick"]
				must.Eq(t, start.Add(2*time.Second), quick.FinishedAt)
				must.Nil(t, tasktest.LastEvent(quick, structs.TaskKilling))
				// The servers never saw it complete: no client update said so.
				for _, u := range h.handler.updates {
					must.NotEq(t, structs.AllocClientStatusComplete, u.ClientStatus)
				}
			})
		})
	}
}
