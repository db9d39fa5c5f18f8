package taskrunner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/structs"
)

// warned gives task a max_run_warning of signal, before ahead.
func warned(task *structs.Task, signal string, before time.Duration) *structs.Task {
	task.MaxRunWarning = &structs.MaxRunWarning{Signal: signal, Before: before}
	return task
}

// signals are the signals the mock driver delivered to the harness's
// current run.
func (h *harness) signals() []string {
	h.t.Helper()
	handle := h.tr.currentHandle()
	must.NotNil(h.t, handle, must.Sprint("no run in progress"))
	got, err := h.driver.ReceivedSignals(handle.Config.ID)
	must.NoError(h.t, err)
	return got
}

// mustWarnedAt checks that the task got its warning once, at want, with
// its Signaling event.
func mustWarnedAt(t *testing.T, ts *structs.TaskState, signal, reason string, want time.Time) {
	t.Helper()
	must.Eq(t, want, ts.MaxRunWarnedAt)
	must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskSignaling))
	ev := tasktest.LastEvent(ts, structs.TaskSignaling)
	must.Eq(t, want.UnixNano(), ev.Time)
	must.Eq(t, signal, ev.TaskSignal)
	must.Eq(t, reason, ev.TaskSignalReason)
	must.Eq(t, "Task being sent signal "+signal+": "+reason, ev.DisplayMessage)
}

func TestTaskRunner_MaxRunWarningBeforeOwnDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testAlloc(structs.JobTypeBatch,
			warned(limitedTask(map[string]any{"run_for": "1h"}, 10*time.Second), "SIGUSR1", 3*time.Second)))
		start := time.Now()
		h.run()

		time.Sleep(7*time.Second - time.Nanosecond)
		synctest.Wait()
		must.SliceEmpty(t, h.signals())
		must.True(t, h.tr.TaskState().MaxRunWarnedAt.IsZero())

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		must.Eq(t, []string{"SIGUSR1"}, h.signals())
		mustWarnedAt(t, h.tr.TaskState(), "SIGUSR1", "3s before max_run_duration", start.Add(7*time.Second))

		ts := h.waitDead()
		mustKilledForOwnLimit(t, ts, start.Add(10*time.Second))
		mustWarnedAt(t, ts, "SIGUSR1", "3s before max_run_duration", start.Add(7*time.Second))
	})
}

func TestTaskRunner_MaxRunWarningOfTheEarliestDeadline(t *testing.T) {
	cases := []struct {
		name     string
		group    *time.Duration
		own      *time.Duration
		wantWarn time.Duration
	}{
		{name: "the group's only", group: new(10 * time.Second), wantWarn: 8 * time.Second},
		{name: "the group's, before the task's own", group: new(10 * time.Second), own: new(20 * time.Second), wantWarn: 8 * time.Second},
		{name: "the task's own, before the group's", group: new(time.Minute), own: new(5 * time.Second), wantWarn: 3 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				task := warned(testTask("web", map[string]any{"run_for": "1h"}), "SIGUSR2", 2*time.Second)
				task.MaxRunDuration = tc.own
				alloc := testAlloc(structs.JobTypeBatch, task)
				alloc.Job.TaskGroups[0].MaxRunDuration = tc.group
				h := newHarness(t, alloc)
				start := time.Now()
				h.run()
				time.Sleep(tc.wantWarn + time.Second)
				must.Eq(t, []string{"SIGUSR2"}, h.signals())
				mustWarnedAt(t, h.tr.TaskState(), "SIGUSR2", "2s before max_run_duration", start.Add(tc.wantWarn))
				h.kill(nil)
			})
		})
	}
}

func TestTaskRunner_MaxRunWarningDueBeforeTheTaskRuns(t *testing.T) {
	cases := []struct {
		name string
		// gate is when the lifecycle lets the task begin; start its
		// driver's start time.
		gate, startFor time.Duration
		wantWarn       time.Duration
	}{
		{name: "passed when the task begins: at once", gate: 8 * time.Second, wantWarn: 8 * time.Second},
		{name: "due during a slow start: when it runs", startFor: 8 * time.Second, wantWarn: 8 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The group's deadline is at 10s, the warning due at 6s.
				alloc := testAlloc(structs.JobTypeBatch, warned(testTask("web", map[string]any{
					"run_for": "1h", "start_block_for": tc.startFor.String(),
				}), "SIGUSR1", 4*time.Second))
				alloc.Job.TaskGroups[0].MaxRunDuration = new(10 * time.Second)
				gate := make(chan struct{})
				h := newHarness(t, alloc)
				h.tr = h.newRunner(withGate(gate))
				start := time.Now()
				h.run()
				time.Sleep(tc.gate)
				close(gate)
				time.Sleep(tc.startFor)
				synctest.Wait()
				ts := h.tr.TaskState()
				must.Eq(t, start.Add(tc.wantWarn), ts.StartedAt)
				must.Eq(t, []string{"SIGUSR1"}, h.signals())
				mustWarnedAt(t, ts, "SIGUSR1", "4s before max_run_duration", start.Add(tc.wantWarn))
				h.kill(nil)
			})
		})
	}
}

func TestTaskRunner_MaxRunWarningAcrossAgentRestarts(t *testing.T) {
	cases := []struct {
		name string
		// stop and back are when the agent stops and comes back.
		stop, back time.Duration
		// wantWarn is when the warning went; zero for never.
		wantWarn time.Duration
	}{
		{name: "down at the warning time: sent when back", stop: 5 * time.Second, back: 8 * time.Second, wantWarn: 8 * time.Second},
		{name: "warned before the restart: not again", stop: 8 * time.Second, back: 9 * time.Second, wantWarn: 7 * time.Second},
		{name: "down through the deadline: no warning, the kill at once", stop: 5 * time.Second, back: 12 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, testAlloc(structs.JobTypeBatch,
					warned(limitedTask(map[string]any{"run_for": "1h"}, 10*time.Second), "SIGUSR1", 3*time.Second)))
				start := time.Now()
				h.run()
				time.Sleep(tc.stop)
				h.tr.Shutdown()
				time.Sleep(tc.back - tc.stop)
				h.tr = h.newRunner()
				must.NoError(t, h.tr.Restore())
				h.run()
				synctest.Wait()

				if tc.wantWarn == 0 {
					ts := h.waitDead()
					mustKilledForOwnLimit(t, ts, start.Add(tc.back))
					must.True(t, ts.MaxRunWarnedAt.IsZero())
					must.Eq(t, 0, tasktest.CountEvents(ts, structs.TaskSignaling))
					return
				}
				must.Eq(t, []string{"SIGUSR1"}, h.signals(), must.Sprint("the warning goes once"))
				ts := h.waitDead()
				mustWarnedAt(t, ts, "SIGUSR1", "3s before max_run_duration", start.Add(tc.wantWarn))
				mustKilledForOwnLimit(t, ts, start.Add(10*time.Second))
			})
		})
	}
}

func TestTaskRunner_MaxRunWarningMovesWithAnInPlaceChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(structs.JobTypeBatch,
			warned(limitedTask(map[string]any{"run_for": "1h"}, 10*time.Second), "SIGUSR1", 3*time.Second))
		h := newHarness(t, alloc)
		start := time.Now()
		h.run()
		time.Sleep(2 * time.Second)
		next := alloc.Copy()
		next.Job.Version = 1
		next.Job.TaskGroups[0].Tasks[0].MaxRunDuration = new(20 * time.Second)
		h.tr.Update(next)

		time.Sleep(10 * time.Second)
		must.SliceEmpty(t, h.signals(), must.Sprint("the old moment, 7s, has passed unsent"))
		ts := h.waitDead()
		mustWarnedAt(t, ts, "SIGUSR1", "3s before max_run_duration", start.Add(17*time.Second))
		mustKilledForOwnLimit(t, ts, start.Add(20*time.Second))
	})
}

func TestTaskRunner_MaxRunWarningNotToADeadTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The task ends at 5s, before its warning at 7s.
		h := newHarness(t, testAlloc(structs.JobTypeBatch,
			warned(limitedTask(map[string]any{"run_for": "5s"}, 10*time.Second), "SIGUSR1", 3*time.Second)))
		h.run()
		ts := h.waitDead()
		time.Sleep(time.Minute)
		must.True(t, ts.MaxRunWarnedAt.IsZero())
		must.Eq(t, 0, tasktest.CountEvents(h.tr.TaskState(), structs.TaskSignaling))
		must.False(t, h.tr.TaskState().MaxRunExceeded)
	})
}

func TestFormatLeadTime(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Minute:         "5m",
		time.Hour:               "1h",
		90 * time.Minute:        "1h30m",
		90 * time.Second:        "1m30s",
		3 * time.Second:         "3s",
		1500 * time.Millisecond: "1.5s",
		time.Hour + time.Second: "1h0m1s",
	} {
		must.Eq(t, want, formatLeadTime(d), must.Sprint(d))
	}
}

func TestTaskRunner_MaxRunWarningMovesWithTheAllocationsBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The group's 10s would warn at 7s; the allocation's budget is
		// raised to 20s at 2s.
		alloc := testAlloc(structs.JobTypeBatch, warned(testTask("web", map[string]any{"run_for": "1h"}), "SIGUSR1", 3*time.Second))
		alloc.Job.TaskGroups[0].MaxRunDuration = new(10 * time.Second)
		h := newHarness(t, alloc)
		start := time.Now()
		h.run()
		time.Sleep(2 * time.Second)
		next := alloc.Copy()
		next.MaxRunOverride = &structs.MaxRunOverride{Budget: 20 * time.Second, Replaces: 10 * time.Second}
		h.tr.Update(next)

		time.Sleep(16 * time.Second)
		must.Eq(t, []string{"SIGUSR1"}, h.signals())
		mustWarnedAt(t, h.tr.TaskState(), "SIGUSR1", "3s before max_run_duration", start.Add(17*time.Second))
		h.kill(nil)
	})
}
