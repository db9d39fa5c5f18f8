package allocrunner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/structs"
)

// budgeted returns alloc, created now, with max_run_duration d.
func budgeted(alloc *structs.Allocation, d time.Duration) *structs.Allocation {
	alloc.CreateTime = time.Now().UnixNano()
	alloc.Job.TaskGroups[0].MaxRunDuration = &d
	return alloc
}

// mustEndedForMaxRun checks that the allocation ended complete for its
// max_run_duration.
func mustEndedForMaxRun(t *testing.T, a *structs.Allocation) {
	t.Helper()
	must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
	must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, a.ClientDescription)
}

// mustExceeded checks that the allocation ended complete for its
// max_run_duration, and that the runner recorded that.
func mustExceeded(t *testing.T, h *arHarness) *structs.Allocation {
	t.Helper()
	a := h.ar.Alloc()
	mustEndedForMaxRun(t, a)
	mustEndedForMaxRun(t, h.handler.last())
	rs, err := h.db.GetAllocRunnerState(a.ID)
	must.NoError(t, err)
	must.NotNil(t, rs)
	must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)
	return a
}

// mustKilledForMaxRun checks that the task got the max_run_duration
// Killing event.
func mustKilledForMaxRun(t *testing.T, ts *structs.TaskState, name string) {
	t.Helper()
	killing := tasktest.LastEvent(ts, structs.TaskKilling)
	must.NotNil(t, killing, must.Sprintf("%s has no Killing event", name))
	must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, killing.DisplayMessage, must.Sprint(name))
}

func TestAllocRunner_MaxRunDurationKillsAtDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The design's example: one task outlives the budget, the other
		// ends on its own.
		alloc := budgeted(testAlloc(
			mockTask("maxrun", map[string]any{"run_for": "1000m"}),
			mockTask("maxrun2", map[string]any{"run_for": "2s"}),
		), 10*time.Second)
		h := newARHarness(t, alloc)
		start := time.Now()
		go h.ar.Run()

		time.Sleep(10*time.Second - time.Nanosecond)
		must.Eq(t, structs.TaskStateRunning, h.taskState("maxrun").State)
		must.Eq(t, structs.AllocClientStatusRunning, h.ar.Alloc().ClientStatus)

		<-h.ar.WaitCh()
		a := mustExceeded(t, h)
		maxrun := a.TaskStates["maxrun"]
		must.Eq(t, start.Add(10*time.Second), maxrun.FinishedAt)
		must.False(t, maxrun.Failed)
		mustKilledForMaxRun(t, maxrun, "maxrun")
		must.Eq(t, []string{structs.TaskReceived, structs.TaskSetup, structs.TaskStarted,
			structs.TaskKilling, structs.TaskTerminated, structs.TaskKilled}, tasktest.EventTypes(maxrun))

		maxrun2 := a.TaskStates["maxrun2"]
		must.Eq(t, start.Add(2*time.Second), maxrun2.FinishedAt)
		must.Nil(t, tasktest.LastEvent(maxrun2, structs.TaskKilling))
		must.Eq(t, 0, tasktest.LastEvent(maxrun2, structs.TaskTerminated).ExitCode)
	})
}

func TestAllocRunner_MaxRunDurationSlowStartNeverRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A huge image: the start takes longer than the whole budget.
		alloc := budgeted(testAlloc(mockTask("main", map[string]any{"run_for": "1h", "start_block_for": "1h"})), 10*time.Second)
		h := newARHarness(t, alloc)
		start := time.Now()
		runToEnd(h.ar)

		a := mustExceeded(t, h)
		main := a.TaskStates["main"]
		must.True(t, main.StartedAt.IsZero())
		must.Eq(t, 0, tasktest.CountEvents(main, structs.TaskStarted))
		must.Eq(t, start.Add(10*time.Second), main.FinishedAt)
		must.False(t, main.Failed)
		mustKilledForMaxRun(t, main, "main")
		for _, a := range h.handler.updates {
			must.NotEq(t, structs.AllocClientStatusRunning, a.ClientStatus, must.Sprint("the task never ran"))
		}
	})
}

func TestAllocRunner_MaxRunDurationCountsPrestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := budgeted(testAlloc(
			withLifecycle(mockTask("init", map[string]any{"run_for": "8s"}), structs.TaskLifecycleHookPrestart, false),
			withLifecycle(mockTask("sidecar", map[string]any{"run_for": "1h"}), structs.TaskLifecycleHookPrestart, true),
			mockTask("main", map[string]any{"run_for": "5s"}),
			withLifecycle(mockTask("poststart", map[string]any{"run_for": "1h"}), structs.TaskLifecycleHookPoststart, false),
		), 10*time.Second)
		h := newARHarness(t, alloc)
		start := time.Now()
		runToEnd(h.ar)

		// main started after init's 8s and had 2s left of the budget.
		a := mustExceeded(t, h)
		main := a.TaskStates["main"]
		must.Eq(t, start.Add(8*time.Second), main.StartedAt)
		must.Eq(t, start.Add(10*time.Second), main.FinishedAt)
		for _, name := range []string{"main", "sidecar", "poststart"} {
			ts := a.TaskStates[name]
			must.Eq(t, start.Add(10*time.Second), ts.FinishedAt, must.Sprint(name))
			mustKilledForMaxRun(t, ts, name)
		}
		must.Nil(t, tasktest.LastEvent(a.TaskStates["init"], structs.TaskKilling))
	})
}

func TestAllocRunner_MaxRunDurationPoststopNeverStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := budgeted(mainAndCleanup("1s"), 10*time.Second)
		h := newARHarness(t, alloc)
		runToEnd(h.ar)

		a := mustExceeded(t, h)
		cleanup := a.TaskStates["cleanup"]
		must.Eq(t, structs.TaskStateDead, cleanup.State)
		must.True(t, cleanup.StartedAt.IsZero())
		must.Eq(t, 0, tasktest.CountEvents(cleanup, structs.TaskStarted))
		must.False(t, cleanup.Failed)

		time.Sleep(time.Hour)
		must.True(t, h.taskState("cleanup").StartedAt.IsZero())
	})
}

func TestAllocRunner_MaxRunDurationIsNotRestarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The task fails every 3s and may restart 10 times after 1s.
		task := mockTask("main", map[string]any{"run_for": "3s", "exit_code": 1})
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 10, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
		alloc := budgeted(testAlloc(task), 10*time.Second)
		h := newARHarness(t, alloc)
		start := time.Now()
		runToEnd(h.ar)

		// Runs at 0-3s, 4-7s, 8-10s: the third run is killed.
		a := mustExceeded(t, h)
		main := a.TaskStates["main"]
		must.Eq(t, uint64(2), main.Restarts)
		must.Eq(t, start.Add(8*time.Second), time.Unix(0, tasktest.LastEvent(main, structs.TaskStarted).Time))
		must.Eq(t, structs.TaskKilled, main.Events[len(main.Events)-1].Type)
		must.Eq(t, start.Add(10*time.Second), main.FinishedAt)
		must.False(t, main.Failed)
		mustKilledForMaxRun(t, main, "main")

		time.Sleep(time.Hour)
		main = h.taskState("main")
		must.Eq(t, uint64(2), main.Restarts)
		must.Eq(t, structs.TaskStateDead, main.State)
		must.Eq(t, structs.TaskKilled, main.Events[len(main.Events)-1].Type)
	})
}

func TestAllocRunner_MaxRunDurationTaskEndsEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newMetricsRecorder()
		alloc := budgeted(testAlloc(mockTask("main", map[string]any{"run_for": "5s"})), 10*time.Second)
		h := newARHarness(t, alloc, func(cfg *Config) { cfg.Metrics = rec.metrics })
		runToEnd(h.ar)

		a := h.ar.Alloc()
		must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
		must.Eq(t, descComplete, a.ClientDescription)
		must.Nil(t, tasktest.LastEvent(a.TaskStates["main"], structs.TaskKilling))
		rs, err := h.db.GetAllocRunnerState(a.ID)
		must.NoError(t, err)
		must.True(t, rs == nil || rs.KillReason == "")

		// The deadline passing later changes nothing.
		sets := rec.gaugeSets()
		time.Sleep(time.Minute)
		must.Eq(t, descComplete, h.ar.Alloc().ClientDescription)
		must.Eq(t, 0, rec.counter(metricMaxRunExceeded))
		must.Eq(t, sets, rec.gaugeSets())
	})
}

func TestAllocRunner_MaxRunDurationWaitsOutKillTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The task ignores SIGINT; kill_timeout is 2s.
		task := mockTask("stubborn", map[string]any{"run_for": "1h", "kill_after": "1h"})
		task.KillTimeout = 2 * time.Second
		alloc := budgeted(testAlloc(task), 10*time.Second)
		h := newARHarness(t, alloc)
		start := time.Now()
		deadline := start.Add(10 * time.Second)
		go h.ar.Run()

		time.Sleep(12*time.Second - time.Nanosecond)
		synctest.Wait()
		// Signalled at the deadline and still running: the alloc is not
		// terminal, so its resources are not handed on.
		ts := h.taskState("stubborn")
		must.Eq(t, structs.TaskStateRunning, ts.State)
		killing := tasktest.LastEvent(ts, structs.TaskKilling)
		must.Eq(t, deadline, time.Unix(0, killing.Time))
		a := h.ar.Alloc()
		must.Eq(t, structs.AllocClientStatusRunning, a.ClientStatus)
		terminal, _ := h.handler.firstTerminal()
		must.Nil(t, terminal)

		<-h.ar.WaitCh()
		a = mustExceeded(t, h)
		stubborn := a.TaskStates["stubborn"]
		must.Eq(t, deadline.Add(2*time.Second), stubborn.FinishedAt)
		must.Eq(t, 9, tasktest.LastEvent(stubborn, structs.TaskTerminated).Signal)
		mustKilledForMaxRun(t, stubborn, "stubborn")
		terminal, at := h.handler.firstTerminal()
		must.NotNil(t, terminal)
		must.Eq(t, deadline.Add(2*time.Second), at)
		must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, terminal.ClientDescription)
	})
}

func TestAllocRunner_MaxRunDurationInPlaceUpdate(t *testing.T) {
	cases := []struct {
		name string
		// initial budget, the update at updateAt to budget (0 removes it)
		initial, updateAt, updated time.Duration
		// when main ends, and whether for its max_run_duration
		ends     time.Duration
		exceeded bool
	}{
		{name: "raised", initial: 5 * time.Second, updateAt: 3 * time.Second, updated: 30 * time.Second, ends: 30 * time.Second, exceeded: true},
		{name: "lowered below time used", initial: 30 * time.Second, updateAt: 20 * time.Second, updated: 10 * time.Second, ends: 20 * time.Second, exceeded: true},
		{name: "lowered above time used", initial: 30 * time.Second, updateAt: 5 * time.Second, updated: 10 * time.Second, ends: 10 * time.Second, exceeded: true},
		{name: "removed", initial: 5 * time.Second, updateAt: 3 * time.Second, updated: 0, ends: time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				alloc := budgeted(testAlloc(mockTask("main", map[string]any{"run_for": "1m"})), c.initial)
				h := newARHarness(t, alloc)
				start := time.Now()
				go h.ar.Run()
				time.Sleep(c.updateAt)

				// The servers' in-place update: a new job version, the same
				// allocation (CreateTime and all).
				next := withMaxRunDuration(alloc, c.updated)
				next.Job.Version = 1
				next.AllocModifyIndex++
				h.ar.Update(next)
				<-h.ar.WaitCh()

				main := h.taskState("main")
				must.Eq(t, start.Add(c.ends), main.FinishedAt)
				must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted))
				if !c.exceeded {
					a := h.ar.Alloc()
					must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
					must.Eq(t, descComplete, a.ClientDescription)
					must.Nil(t, tasktest.LastEvent(main, structs.TaskKilling))
					return
				}
				mustExceeded(t, h)
				mustKilledForMaxRun(t, main, "main")
			})
		})
	}
}

func TestAllocRunner_MaxRunDurationDesiredStopWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The servers stop the allocation before its deadline; its
		// poststop task still runs past the deadline.
		alloc := budgeted(mainAndCleanup("30s"), 10*time.Second)
		h := newARHarness(t, alloc)
		start := time.Now()
		go h.ar.Run()
		time.Sleep(5 * time.Second)
		stopByServers(h.ar, alloc)
		<-h.ar.WaitCh()

		a := h.ar.Alloc()
		must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
		must.Eq(t, descComplete, a.ClientDescription)
		cleanup := a.TaskStates["cleanup"]
		must.Eq(t, start.Add(35*time.Second), cleanup.FinishedAt)
		must.Nil(t, tasktest.LastEvent(cleanup, structs.TaskKilling))
	})
}

func TestAllocRunner_MaxRunDurationRestoredKeepsOriginalDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		driver := mock.New(nil)
		agent := newBoltAgent(t, driver)
		defer agent.db.Close()
		alloc := budgeted(testAlloc(mockTask("main", map[string]any{"run_for": "1h"})), 100*time.Second)
		start := time.Now()
		ar := agent.runner(alloc)
		go ar.Run()

		// The agent stops at 30s and is back at 40s, 40% into the budget.
		time.Sleep(30 * time.Second)
		ar.Shutdown()
		time.Sleep(10 * time.Second)
		ar = agent.restart(ar, nil)
		go ar.Run()

		time.Sleep(60*time.Second - time.Nanosecond)
		synctest.Wait()
		must.Eq(t, structs.TaskStateRunning, ar.Alloc().TaskStates["main"].State)
		<-ar.WaitCh()

		a := ar.Alloc()
		mustEndedForMaxRun(t, a)
		main := a.TaskStates["main"]
		must.Eq(t, start.Add(100*time.Second), main.FinishedAt, must.Sprint("the original deadline, not a fresh budget"))
		must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted), must.Sprint("re-attached, not restarted"))
		mustKilledForMaxRun(t, main, "main")
	})
}

func TestAllocRunner_MaxRunDurationRestoredAfterDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		driver := mock.New(nil)
		agent := newBoltAgent(t, driver)
		defer agent.db.Close()
		alloc := budgeted(mainAndCleanup("1s"), 10*time.Second)
		ar := agent.runner(alloc)
		go ar.Run()

		// The agent is down from 5s to 60s; the deadline passes meanwhile.
		time.Sleep(5 * time.Second)
		ar.Shutdown()
		time.Sleep(55 * time.Second)
		back := time.Now()
		ar = agent.restart(ar, nil)
		runToEnd(ar)

		a := ar.Alloc()
		mustEndedForMaxRun(t, a)
		main := a.TaskStates["main"]
		must.Eq(t, back, main.FinishedAt, must.Sprint("enforced at once"))
		must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted))
		mustKilledForMaxRun(t, main, "main")
		must.True(t, a.TaskStates["cleanup"].StartedAt.IsZero())
		rs, err := agent.db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)
	})
}

func TestAllocRunner_MaxRunDurationRestoredMidKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		driver := mock.New(nil)
		agent := newBoltAgent(t, driver)
		defer agent.db.Close()
		// The group's shutdown_delay holds the kill back for 20s after the
		// deadline: the agent stops in the middle of it.
		alloc := budgeted(mainAndCleanup("1s"), 10*time.Second)
		delay := 20 * time.Second
		alloc.Job.TaskGroups[0].ShutdownDelay = &delay
		rec := newMetricsRecorder()
		runner := func() *AllocRunner {
			r, err := NewAllocRunner(&Config{
				Alloc: alloc, AllocDirRoot: agent.root, StateDB: agent.db, Drivers: agent.catalog,
				StateUpdater: agent.handler, Metrics: rec.metrics,
			})
			must.NoError(t, err)
			return r
		}
		ar := runner()
		start := time.Now()
		go ar.Run()

		time.Sleep(15 * time.Second)
		must.Eq(t, 1, rec.counter(metricMaxRunExceeded))
		must.Eq(t, structs.TaskStateRunning, ar.Alloc().TaskStates["main"].State)
		ar.Shutdown()
		rs, err := agent.db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)

		// The stopped agent's kill does not go on without it: neither the
		// task nor its persisted state hears of it.
		time.Sleep(time.Minute)
		local, persisted, err := agent.db.GetTaskRunnerState(alloc.ID, "main")
		must.NoError(t, err)
		must.Eq(t, structs.TaskStateRunning, persisted.State)
		must.Nil(t, tasktest.LastEvent(persisted, structs.TaskKilling))
		status, err := driver.InspectTask(local.TaskHandle.Config.ID)
		must.NoError(t, err)
		must.Eq(t, drivers.TaskStateRunning, status.State)
		back := time.Now()
		must.Eq(t, start.Add(75*time.Second), back)

		must.NoError(t, agent.db.Close())
		agent.open()
		ar = runner()
		must.NoError(t, ar.Restore())
		runToEnd(ar)

		a := ar.Alloc()
		mustEndedForMaxRun(t, a)
		main := a.TaskStates["main"]
		// The new agent finishes the kill, shutdown_delay and all.
		must.Eq(t, back.Add(delay), main.FinishedAt)
		must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted))
		mustKilledForMaxRun(t, main, "main")
		must.True(t, a.TaskStates["cleanup"].StartedAt.IsZero())
		must.Eq(t, 1, rec.counter(metricMaxRunExceeded), must.Sprint("one expiry, counted once"))
	})
}

func TestAllocRunner_MaxRunDurationStateReachesDisk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := state.NewMemDB()
		alloc := budgeted(testAlloc(mockTask("main", map[string]any{"run_for": "1h", "kill_after": "1h"})), 10*time.Second)
		h := newARHarness(t, alloc)
		h.db = db
		h.ar = h.newRunner(alloc)
		go h.ar.Run()
		// Right after the deadline the task is still dying, and the expiry
		// is already on disk.
		time.Sleep(10*time.Second + time.Millisecond)
		synctest.Wait()
		must.Eq(t, structs.TaskStateRunning, h.taskState("main").State)
		rs, err := db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)
		<-h.ar.WaitCh()
	})
}

func TestAllocRunner_MaxRunDurationKillsLeaderAndFollowersAlike(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leader := mockTask("leader", map[string]any{"run_for": "1h"})
		leader.Leader = true
		alloc := budgeted(testAlloc(
			leader,
			mockTask("a", map[string]any{"run_for": "1h"}),
			mockTask("b", map[string]any{"run_for": "1h"}),
			withLifecycle(mockTask("sidecar", map[string]any{"run_for": "1h"}), structs.TaskLifecycleHookPrestart, true),
		), 10*time.Second)
		h := newARHarness(t, alloc)
		runToEnd(h.ar)

		// Every task says it was killed for the deadline, not for the
		// leader's death that the kill caused.
		a := mustExceeded(t, h)
		for name, ts := range a.TaskStates {
			mustKilledForMaxRun(t, ts, name)
			must.Nil(t, tasktest.LastEvent(ts, structs.TaskLeaderDead), must.Sprint(name))
			must.Nil(t, tasktest.LastEvent(ts, structs.TaskMainDead), must.Sprint(name))
		}
	})
}
