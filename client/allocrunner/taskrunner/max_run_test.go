package taskrunner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/structs"
)

// limitedTask is a mock task with the given config and its own
// max_run_duration d.
func limitedTask(config map[string]any, d time.Duration) *structs.Task {
	t := testTask("web", config)
	t.MaxRunDuration = &d
	return t
}

// mustKilledForOwnLimit checks that the task died of its own
// max_run_duration at want.
func mustKilledForOwnLimit(t *testing.T, ts *structs.TaskState, want time.Time) {
	t.Helper()
	must.Eq(t, structs.TaskStateDead, ts.State)
	must.True(t, ts.MaxRunExceeded)
	must.False(t, ts.Failed, must.Sprint("a timeout is not a failure of the task"))
	must.Eq(t, want, ts.FinishedAt)
	killing := tasktest.LastEvent(ts, structs.TaskKilling)
	must.NotNil(t, killing, must.Sprintf("no Killing event: %v", tasktest.EventTypes(ts)))
	must.Eq(t, structs.TaskTimeoutReasonMaxRunDuration, killing.DisplayMessage)
	must.Eq(t, structs.TaskTimeoutReasonMaxRunDuration, killing.KillReason)
}

func TestTaskRunner_MaxRunKillsAtItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The start takes 3s (an image pull): it counts.
		h := newHarness(t, testAlloc(structs.JobTypeBatch,
			limitedTask(map[string]any{"run_for": "1h", "start_block_for": "3s"}, 10*time.Second)))
		start := time.Now()
		h.run()

		time.Sleep(10*time.Second - time.Nanosecond)
		synctest.Wait()
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStateRunning, ts.State)
		must.Eq(t, start, ts.RunnerStartedAt)
		must.Eq(t, start.Add(3*time.Second), ts.StartedAt)

		ts = h.waitDead()
		mustKilledForOwnLimit(t, ts, start.Add(10*time.Second))
		must.Eq(t, []string{structs.TaskReceived, structs.TaskSetup, structs.TaskStarted,
			structs.TaskKilling, structs.TaskTerminated, structs.TaskKilled}, tasktest.EventTypes(ts))
	})
}

func TestTaskRunner_MaxRunCountsFromTheStartGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The task waits 5s for its turn in the lifecycle; that does not
		// count.
		gate := make(chan struct{})
		h := newBatchHarness(t, limitedTask(map[string]any{"run_for": "1h"}, 10*time.Second), withGate(gate))
		h.tr = h.newRunner(withGate(gate))
		start := time.Now()
		h.run()
		time.Sleep(5 * time.Second)
		must.True(t, h.tr.TaskState().RunnerStartedAt.IsZero())
		close(gate)

		ts := h.waitDead()
		must.Eq(t, start.Add(5*time.Second), ts.RunnerStartedAt)
		mustKilledForOwnLimit(t, ts, start.Add(15*time.Second))
	})
}

func TestTaskRunner_MaxRunSlowStartNeverRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, testAlloc(structs.JobTypeBatch,
			limitedTask(map[string]any{"run_for": "1h", "start_block_for": "1h"}, 10*time.Second)))
		start := time.Now()
		h.run()
		ts := h.waitDead()
		mustKilledForOwnLimit(t, ts, start.Add(10*time.Second))
		must.True(t, ts.StartedAt.IsZero())
		must.Eq(t, 0, tasktest.CountEvents(ts, structs.TaskStarted))
	})
}

func TestTaskRunner_MaxRunRestartsDoNotReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Runs of 3s that fail, restarted after 1s: 0-3s, 4-7s, 8-11s.
		task := limitedTask(map[string]any{"run_for": "3s", "exit_code": 1}, 10*time.Second)
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 5, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
		h := newBatchHarness(t, task)
		start := time.Now()
		h.run()
		ts := h.waitDead()
		mustKilledForOwnLimit(t, ts, start.Add(10*time.Second))
		must.Eq(t, uint64(2), ts.Restarts)
		must.Eq(t, start, ts.RunnerStartedAt)
	})
}

func TestTaskRunner_MaxRunUpdateReArmsOnTheSameAnchor(t *testing.T) {
	cases := []struct {
		name     string
		next     *time.Duration
		wantDead time.Duration
		exceeded bool
	}{
		{name: "raised", next: new(20 * time.Second), wantDead: 20 * time.Second, exceeded: true},
		{name: "lowered below the time run: at once", next: new(3 * time.Second), wantDead: 4 * time.Second, exceeded: true},
		{name: "dropped: runs to its end", wantDead: time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				alloc := testAlloc(structs.JobTypeBatch, limitedTask(map[string]any{"run_for": "1m"}, 10*time.Second))
				h := newHarness(t, alloc)
				start := time.Now()
				h.run()
				time.Sleep(4 * time.Second)

				next := alloc.Copy()
				next.Job.Version = 1
				next.Job.TaskGroups[0].Tasks[0].MaxRunDuration = tc.next
				h.tr.Update(next)

				ts := h.waitDead()
				must.Eq(t, start.Add(tc.wantDead), ts.FinishedAt)
				must.Eq(t, tc.exceeded, ts.MaxRunExceeded)
				must.Eq(t, start, ts.RunnerStartedAt, must.Sprint("the anchor stays"))
			})
		})
	}
}

func TestTaskRunner_MaxRunAcrossAgentRestarts(t *testing.T) {
	cases := []struct {
		name string
		// down is how long the agent is down, from 4s in.
		down     time.Duration
		wantDead time.Duration
	}{
		{name: "back before the deadline: kept", down: 2 * time.Second, wantDead: 10 * time.Second},
		{name: "down through the deadline: enforced at once", down: 11 * time.Second, wantDead: 15 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newBatchHarness(t, limitedTask(map[string]any{"run_for": "1h"}, 10*time.Second))
				start := time.Now()
				h.run()
				time.Sleep(4 * time.Second)
				h.tr.Shutdown()
				time.Sleep(tc.down)
				h.tr = h.newRunner()
				must.NoError(t, h.tr.Restore())
				h.run()

				ts := h.waitDead()
				mustKilledForOwnLimit(t, ts, start.Add(tc.wantDead))
				must.Eq(t, start, ts.RunnerStartedAt, must.Sprint("the anchor survives the restart"))
				must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted), must.Sprint("re-attached, not started again"))
			})
		})
	}
}

func TestTaskRunner_MaxRunAfterAnotherKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A kill for another reason that is still under way at the
		// deadline (the task ignores its signal for a while) stays that
		// kill.
		h := newHarness(t, testAlloc(structs.JobTypeBatch,
			limitedTask(map[string]any{"run_for": "1h", "kill_after": "4s"}, 10*time.Second)))
		h.run()
		time.Sleep(8 * time.Second)
		h.kill(NewKillingEvent("stopped by the servers"))
		ts := h.tr.TaskState()
		must.False(t, ts.MaxRunExceeded)
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskKilling))
		must.Eq(t, "stopped by the servers", tasktest.LastEvent(ts, structs.TaskKilling).DisplayMessage)
	})
}

func TestTaskRunner_NoOwnLimitNoKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A group limit is the alloc runner's to enforce, not the task
		// runner's.
		alloc := testAlloc(structs.JobTypeBatch, testTask("web", map[string]any{"run_for": "30s"}))
		alloc.Job.TaskGroups[0].MaxRunDuration = new(10 * time.Second)
		h := newHarness(t, alloc)
		start := time.Now()
		h.run()
		ts := h.waitDead()
		must.Eq(t, start.Add(30*time.Second), ts.FinishedAt)
		must.False(t, ts.MaxRunExceeded)
		must.Eq(t, start, ts.RunnerStartedAt)
	})
}
