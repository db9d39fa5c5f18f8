package allocrunner

import (
	"errors"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

func TestAllocRunner_LifecycleOrdering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(
			withLifecycle(mockTask("init", map[string]any{"run_for": "10s"}), structs.TaskLifecycleHookPrestart, false),
			withLifecycle(mockTask("sidecar", map[string]any{"run_for": "1h"}), structs.TaskLifecycleHookPrestart, true),
			mockTask("main", map[string]any{"run_for": "20s"}),
			withLifecycle(mockTask("poststart", map[string]any{"run_for": "5s"}), structs.TaskLifecycleHookPoststart, false),
			withLifecycle(mockTask("cleanup", map[string]any{"run_for": "3s"}), structs.TaskLifecycleHookPoststop, false),
		)
		h := newARHarness(t, alloc)
		start := time.Now()
		runToEnd(h.ar)

		at := func(d time.Duration) time.Time { return start.Add(d) }
		cases := []struct {
			task             string
			started, finishd time.Time
		}{
			{"init", at(0), at(10 * time.Second)},
			{"sidecar", at(0), at(30 * time.Second)},
			{"main", at(10 * time.Second), at(30 * time.Second)},
			{"poststart", at(10 * time.Second), at(15 * time.Second)},
			{"cleanup", at(30 * time.Second), at(33 * time.Second)},
		}
		for _, c := range cases {
			ts := h.taskState(c.task)
			must.Eq(t, structs.TaskStateDead, ts.State, must.Sprint(c.task))
			must.False(t, ts.Failed, must.Sprint(c.task))
			must.Eq(t, c.started, ts.StartedAt, must.Sprintf("%s started", c.task))
			must.Eq(t, c.finishd, ts.FinishedAt, must.Sprintf("%s finished", c.task))
		}
		must.NotNil(t, tasktest.LastEvent(h.taskState("sidecar"), structs.TaskMainDead))

		final := h.ar.Alloc()
		must.Eq(t, structs.AllocClientStatusComplete, final.ClientStatus)
		must.Eq(t, descComplete, final.ClientDescription)
		// Updates coalesce, so the first may already be running; the
		// status never goes back.
		statuses := h.handler.statuses()
		if statuses[0] == structs.AllocClientStatusPending {
			statuses = statuses[1:]
		}
		must.Eq(t, []string{structs.AllocClientStatusRunning, structs.AllocClientStatusComplete}, statuses)
		must.Eq(t, structs.AllocClientStatusComplete, h.handler.last().ClientStatus)
		must.MapLen(t, 5, h.handler.last().TaskStates)
	})
}

func TestAllocRunner_FailedPrestartKeepsMainsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(
			withLifecycle(mockTask("init", map[string]any{"run_for": "1s", "exit_code": 1}), structs.TaskLifecycleHookPrestart, false),
			mockTask("main", map[string]any{"run_for": "1h"}),
			withLifecycle(mockTask("cleanup", map[string]any{"run_for": "1s"}), structs.TaskLifecycleHookPoststop, false),
		)
		h := newARHarness(t, alloc)
		runToEnd(h.ar)

		must.True(t, h.taskState("init").Failed)
		main := h.taskState("main")
		must.Eq(t, structs.TaskStateDead, main.State)
		must.True(t, main.StartedAt.IsZero())
		must.Eq(t, "init", tasktest.LastEvent(main, structs.TaskSiblingFailed).FailedSibling)
		// Cleanup still runs after the failure.
		must.False(t, h.taskState("cleanup").StartedAt.IsZero())
		must.Eq(t, structs.AllocClientStatusFailed, h.ar.Alloc().ClientStatus)
	})
}

func TestAllocRunner_LeaderDeathStopsOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leader := mockTask("leader", map[string]any{"run_for": "5s"})
		leader.Leader = true
		alloc := testAlloc(leader, mockTask("helper", map[string]any{"run_for": "1h"}))
		h := newARHarness(t, alloc)
		start := time.Now()
		runToEnd(h.ar)

		must.Eq(t, 5*time.Second, time.Since(start))
		helper := h.taskState("helper")
		must.Eq(t, []string{structs.TaskReceived, structs.TaskSetup, structs.TaskStarted, structs.TaskLeaderDead,
			structs.TaskKilling, structs.TaskTerminated, structs.TaskKilled}, tasktest.EventTypes(helper))
		must.False(t, helper.Failed)
		must.Eq(t, structs.AllocClientStatusComplete, h.ar.Alloc().ClientStatus)
	})
}

func TestAllocRunner_FailedTaskStopsSiblings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(
			mockTask("bad", map[string]any{"run_for": "2s", "exit_code": 3}),
			mockTask("good", map[string]any{"run_for": "1h"}),
		)
		h := newARHarness(t, alloc)
		runToEnd(h.ar)
		must.Eq(t, "bad", tasktest.LastEvent(h.taskState("good"), structs.TaskSiblingFailed).FailedSibling)
		must.False(t, h.taskState("good").Failed)
		a := h.ar.Alloc()
		must.Eq(t, structs.AllocClientStatusFailed, a.ClientStatus)
		must.Eq(t, descFailed, a.ClientDescription)
	})
}

func TestAllocRunner_DesiredStopRunsPoststop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(
			mockTask("main", map[string]any{"run_for": "1h", "kill_after": "2s"}),
			withLifecycle(mockTask("cleanup", map[string]any{"run_for": "1s"}), structs.TaskLifecycleHookPoststop, false),
		)
		h := newARHarness(t, alloc)
		go h.ar.Run()
		time.Sleep(time.Minute)

		stopByServers(h.ar, alloc)
		<-h.ar.WaitCh()

		main := h.taskState("main")
		must.NotNil(t, tasktest.LastEvent(main, structs.TaskKilling))
		must.Eq(t, time.Minute+2*time.Second, main.FinishedAt.Sub(main.StartedAt))
		cleanup := h.taskState("cleanup")
		must.Eq(t, main.FinishedAt, cleanup.StartedAt)
		must.Eq(t, structs.AllocClientStatusComplete, h.ar.Alloc().ClientStatus)

		// The update was persisted.
		allocs, _, err := h.db.GetAllAllocations()
		must.NoError(t, err)
		must.Eq(t, structs.AllocDesiredStatusStop, allocs[0].DesiredStatus)
	})
}

func TestAllocRunner_AlreadyStoppedRunsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := mainAndCleanup("1s")
		alloc.DesiredStatus = structs.AllocDesiredStatusStop
		h := newARHarness(t, alloc)
		runToEnd(h.ar)
		for _, name := range []string{"main", "cleanup"} {
			ts := h.taskState(name)
			must.Eq(t, structs.TaskStateDead, ts.State)
			must.True(t, ts.StartedAt.IsZero(), must.Sprint(name))
		}
	})
}

func TestAllocRunner_KillAllForMaxRunDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(
			withLifecycle(mockTask("sidecar", map[string]any{"run_for": "1h"}), structs.TaskLifecycleHookPrestart, true),
			mockTask("stubborn", map[string]any{"run_for": "1h", "kill_after": "1h"}),
			mockTask("flaky", map[string]any{"run_for": "1s", "exit_code": 1}),
			withLifecycle(mockTask("poststart", map[string]any{"run_for": "1h"}), structs.TaskLifecycleHookPoststart, false),
			withLifecycle(mockTask("cleanup", map[string]any{"run_for": "1s"}), structs.TaskLifecycleHookPoststop, false),
		)
		// flaky restarts after a long delay; stubborn ignores its signal.
		alloc.Job.TaskGroups[0].Tasks[2].RestartPolicy = &structs.RestartPolicy{Attempts: 5, Interval: time.Hour, Delay: time.Minute, Mode: structs.RestartPolicyModeFail}
		alloc.Job.TaskGroups[0].Tasks[1].KillTimeout = 10 * time.Second
		h := newARHarness(t, alloc)
		go h.ar.Run()
		time.Sleep(10 * time.Second)
		must.Eq(t, structs.TaskStatePending, h.taskState("flaky").State, must.Sprint("flaky waits to restart"))

		h.ar.killAll(state.KillReasonMaxRunDuration)
		// The reason is on disk before any task has died.
		rs, err := h.db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)

		// stubborn holds out for its kill_timeout: the alloc is not done.
		time.Sleep(5 * time.Second)
		must.Eq(t, structs.TaskStateRunning, h.taskState("stubborn").State)
		a := h.ar.Alloc()
		must.Eq(t, structs.AllocClientStatusRunning, a.ClientStatus)

		// flaky was failing (waiting to restart after exiting 1) when the
		// deadline passed: the allocation failed, and says why.
		<-h.ar.WaitCh()
		a = h.ar.Alloc()
		must.Eq(t, structs.AllocClientStatusFailed, a.ClientStatus)
		must.StrHasPrefix(t, `allocation exceeded max_run_duration while task "flaky" was failing: `, a.ClientDescription)
		must.Eq(t, a.ClientDescription, h.handler.last().ClientDescription)
		must.True(t, a.MaxRun().Exceeded)

		for _, name := range []string{"sidecar", "stubborn", "flaky", "poststart", "cleanup"} {
			ts := a.TaskStates[name]
			must.Eq(t, structs.TaskStateDead, ts.State, must.Sprint(name))
			killing := tasktest.LastEvent(ts, structs.TaskKilling)
			must.NotNil(t, killing, must.Sprint(name))
			must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, killing.DisplayMessage, must.Sprint(name))
		}
		stubborn := a.TaskStates["stubborn"]
		must.Eq(t, 9, tasktest.LastEvent(stubborn, structs.TaskTerminated).Signal)
		must.Eq(t, 10*time.Second, stubborn.FinishedAt.Sub(stubborn.StartedAt.Add(10*time.Second)))
		flaky := a.TaskStates["flaky"]
		must.Eq(t, uint64(1), flaky.Restarts)
		must.Eq(t, 1, tasktest.CountEvents(flaky, structs.TaskStarted))
		cleanup := a.TaskStates["cleanup"]
		must.True(t, cleanup.StartedAt.IsZero())
		must.Eq(t, 0, tasktest.CountEvents(cleanup, structs.TaskStarted))

		// Nothing starts later either.
		time.Sleep(2 * time.Hour)
		must.Eq(t, 1, tasktest.CountEvents(h.taskState("flaky"), structs.TaskStarted))
	})
}

func TestAllocRunner_KillAllCancelsSlowStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newARHarness(t, testAlloc(mockTask("main", map[string]any{"run_for": "1h", "start_block_for": "1h"})))
		go h.ar.Run()
		time.Sleep(time.Minute)
		start := time.Now()
		h.ar.killAll(state.KillReasonMaxRunDuration)
		<-h.ar.WaitCh()
		must.Less(t, time.Second, time.Since(start))
		ts := h.taskState("main")
		must.True(t, ts.StartedAt.IsZero())
		must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, h.ar.Alloc().ClientDescription)
	})
}

func TestAllocRunner_GroupShutdownDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		delay := 7 * time.Second
		alloc.Job.TaskGroups[0].ShutdownDelay = &delay
		h := newARHarness(t, alloc)
		go h.ar.Run()
		synctest.Wait()
		start := time.Now()
		stopByServers(h.ar, alloc)
		<-h.ar.WaitCh()
		must.Eq(t, delay, time.Since(start))
	})
}

func TestAllocRunner_PrerunFailureFailsTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newARHarness(t, testAlloc(mockTask("main", map[string]any{"run_for": "1s"})))
		h.ar.hooks = append(h.ar.hooks, &failingPrerun{})
		runToEnd(h.ar)
		ts := h.taskState("main")
		must.True(t, ts.Failed)
		must.True(t, ts.StartedAt.IsZero())
		must.StrContains(t, tasktest.LastEvent(ts, structs.TaskSetupFailure).SetupError, "disk on fire")
		must.Eq(t, structs.AllocClientStatusFailed, h.ar.Alloc().ClientStatus)
	})
}

type failingPrerun struct{}

func (*failingPrerun) Name() string  { return "failing" }
func (*failingPrerun) Prerun() error { return errors.New("disk on fire") }

func TestAllocRunner_Destroy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		h := newARHarness(t, alloc)
		go h.ar.Run()
		synctest.Wait()
		must.DirExists(t, h.ar.allocDir.AllocDir)

		h.ar.Destroy()
		must.Eq(t, structs.TaskStateDead, h.taskState("main").State)
		_, err := os.Stat(h.ar.allocDir.AllocDir)
		must.True(t, os.IsNotExist(err))
		allocs, _, err := h.db.GetAllAllocations()
		must.NoError(t, err)
		must.SliceEmpty(t, allocs)
		select {
		case <-h.ar.WaitCh():
		default:
			t.Fatal("WaitCh open after Destroy")
		}
	})
}

func TestAllocRunner_RestartAndSignal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(mockTask("a", map[string]any{"run_for": "1h"}), mockTask("b", map[string]any{"run_for": "1h"}))
		h := newARHarness(t, alloc)
		go h.ar.Run()
		synctest.Wait()

		must.NoError(t, h.ar.RestartTask("a", taskrunner.NewRestartSignalEvent("because")))
		must.Error(t, h.ar.RestartTask("nope", nil))
		synctest.Wait()
		must.Eq(t, uint64(1), h.taskState("a").Restarts)
		must.Eq(t, uint64(0), h.taskState("b").Restarts)

		must.NoError(t, h.ar.RestartAll(nil))
		synctest.Wait()
		must.Eq(t, uint64(2), h.taskState("a").Restarts)
		must.Eq(t, uint64(1), h.taskState("b").Restarts)

		must.NoError(t, h.ar.Signal("a", "SIGHUP"))
		must.NoError(t, h.ar.Signal("", "SIGUSR1"))
		must.Eq(t, "SIGUSR1", tasktest.LastEvent(h.taskState("b"), structs.TaskSignaling).TaskSignal)
		must.Error(t, h.ar.Signal("nope", "SIGHUP"))

		h.ar.Destroy()
	})
}

func TestAllocRunner_InPlaceUpdate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		h := newARHarness(t, alloc)
		go h.ar.Run()
		synctest.Wait()

		next := alloc.Copy()
		next.Job.Version = 1
		next.Job.TaskGroups[0].Tasks[0].Config["stdout_string"] = "v2"
		h.ar.Update(next)
		synctest.Wait()
		// The running task is left alone.
		must.Eq(t, 1, tasktest.CountEvents(h.taskState("main"), structs.TaskStarted))
		must.Eq(t, "v2", h.ar.lookupTask("main").runner.Task().Config["stdout_string"].(string))
		must.Eq(t, uint64(1), h.ar.Alloc().Job.Version)
		h.ar.Destroy()
	})
}

func TestAllocRunner_KillAllAfterTheEndChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newARHarness(t, testAlloc(mockTask("main", map[string]any{"run_for": "1s"})))
		runToEnd(h.ar)
		h.ar.killAll(state.KillReasonMaxRunDuration)
		a := h.ar.Alloc()
		must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
		must.Eq(t, descComplete, a.ClientDescription)
		rs, err := h.db.GetAllocRunnerState(a.ID)
		must.NoError(t, err)
		must.Nil(t, rs)
		must.Nil(t, tasktest.LastEvent(a.TaskStates["main"], structs.TaskKilling))
	})
}
