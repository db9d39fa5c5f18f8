package allocrunner

import (
	"os"
	"path/filepath"
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

// boltAgent is the part of a client agent that survives a restart on disk:
// its data dir. Each start opens the state DB and restores the alloc
// runners, as the client does.
type boltAgent struct {
	t       *testing.T
	dataDir string
	root    string
	catalog *drivers.Catalog
	db      state.StateDB
	handler *recorder
}

func newBoltAgent(t *testing.T, driver drivers.Driver) *boltAgent {
	a := &boltAgent{t: t, dataDir: t.TempDir(), catalog: drivers.NewCatalog(driver)}
	a.root = filepath.Join(a.dataDir, "alloc")
	a.open()
	return a
}

func (a *boltAgent) open() {
	a.t.Helper()
	db, err := state.OpenBoltStateDB(nil, filepath.Join(a.dataDir, "client"))
	must.NoError(a.t, err)
	a.db = db
	a.handler = &recorder{}
}

func (a *boltAgent) runner(alloc *structs.Allocation) *AllocRunner {
	a.t.Helper()
	ar, err := NewAllocRunner(&Config{
		Alloc: alloc, AllocDirRoot: a.root, StateDB: a.db, Drivers: a.catalog, StateUpdater: a.handler,
	})
	must.NoError(a.t, err)
	return ar
}

// restart stops the agent's runner as a dying agent leaves it, closes the
// state DB, reopens it and restores the one allocation it holds.
func (a *boltAgent) restart(old *AllocRunner, driver drivers.Driver) *AllocRunner {
	a.t.Helper()
	old.Shutdown()
	must.NoError(a.t, a.db.Close())
	if driver != nil {
		a.catalog = drivers.NewCatalog(driver)
	}
	a.open()
	allocs, errs, err := a.db.GetAllAllocations()
	must.NoError(a.t, err)
	must.MapEmpty(a.t, errs)
	must.Len(a.t, 1, allocs)
	ar := a.runner(allocs[0])
	must.NoError(a.t, ar.Restore())
	return ar
}

func TestAllocRunner_RestoreReattachesRunningTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// One driver for both agent runs: its tasks outlive the agent, as
		// processes do.
		driver := mock.New(nil)
		agent := newBoltAgent(t, driver)
		defer agent.db.Close()
		alloc := testAlloc(mockTask("main", map[string]any{
			"run_for": "60s", "exit_code": 3,
			"stdout_string": "tick\n", "stdout_repeat": 100, "stdout_repeat_duration": "1s",
		}))
		ar := agent.runner(alloc)
		start := time.Now()
		go ar.Run()
		time.Sleep(20*time.Second + time.Millisecond)
		local, _, err := agent.db.GetTaskRunnerState(alloc.ID, "main")
		must.NoError(t, err)
		taskID := local.TaskHandle.Config.ID
		logPath := local.TaskHandle.Config.StdoutPath + ".0"
		before, err := os.ReadFile(logPath)
		must.NoError(t, err)

		ar = agent.restart(ar, nil)
		go ar.Run()
		synctest.Wait()

		ts := ar.Alloc().TaskStates["main"]
		must.Eq(t, structs.TaskStateRunning, ts.State)
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted), must.Sprint("re-attached, not restarted"))
		must.Eq(t, uint64(0), ts.Restarts)
		must.Eq(t, structs.AllocClientStatusRunning, ar.Alloc().ClientStatus)

		<-ar.WaitCh()
		must.Eq(t, 60*time.Second, time.Since(start), must.Sprint("one run of 60s"))
		ts = ar.Alloc().TaskStates["main"]
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, 3, tasktest.LastEvent(ts, structs.TaskTerminated).ExitCode)
		must.Eq(t, structs.AllocClientStatusFailed, ar.Alloc().ClientStatus)

		// The same run, writing on to the same log file.
		_, err = driver.InspectTask(taskID)
		must.Error(t, err, must.Sprint("the run was released after it ended"))
		after, err := os.ReadFile(logPath)
		must.NoError(t, err)
		must.Greater(t, len(before), len(after))
		must.StrHasPrefix(t, string(before), string(after))

		// The final state is on disk.
		_, persisted, err := agent.db.GetTaskRunnerState(alloc.ID, "main")
		must.NoError(t, err)
		must.Eq(t, structs.TaskStateDead, persisted.State)
		must.Eq(t, 3, tasktest.LastEvent(persisted, structs.TaskTerminated).ExitCode)
	})
}

func TestAllocRunner_RestoreTaskThatExitedWhileAgentWasDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := newBoltAgent(t, mock.New(nil))
		defer agent.db.Close()
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "30s", "exit_code": 0}))
		ar := agent.runner(alloc)
		go ar.Run()
		time.Sleep(10 * time.Second)

		// The agent is down for a minute; the task ends meanwhile, and the
		// new driver only learns how from the task's handle.
		ar.Shutdown()
		time.Sleep(time.Minute)
		ar = agent.restart(ar, mock.New(nil))
		runToEnd(ar)

		a := ar.Alloc()
		ts := a.TaskStates["main"]
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, 0, tasktest.LastEvent(ts, structs.TaskTerminated).ExitCode)
		must.False(t, ts.Failed)
		must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
	})
}

func TestAllocRunner_RestoreFinishesMaxRunDurationKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		driver := mock.New(nil)
		agent := newBoltAgent(t, driver)
		defer agent.db.Close()
		alloc := mainAndCleanup("1s")
		ar := agent.runner(alloc)
		go ar.Run()
		time.Sleep(10 * time.Second)

		// The agent recorded the exceeded deadline and died before its kill.
		ar.Shutdown()
		must.NoError(t, agent.db.PutAllocRunnerState(alloc.ID, &state.AllocRunnerState{KillReason: state.KillReasonMaxRunDuration}))
		ar = agent.restart(ar, nil)
		runToEnd(ar)

		a := ar.Alloc()
		mustEndedForMaxRun(t, a)
		main := a.TaskStates["main"]
		must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted))
		must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, tasktest.LastEvent(main, structs.TaskKilling).DisplayMessage)
		must.True(t, a.TaskStates["cleanup"].StartedAt.IsZero())
	})
}

// restoredWithKillReason runs an allocation of a long main task and a
// poststop task for 10s, stops the agent, records reason as the old agent
// would have, and returns the allocation and the next agent's restored
// runner, not yet running.
func restoredWithKillReason(t *testing.T, agent *boltAgent, reason state.KillReason) (*structs.Allocation, *AllocRunner) {
	t.Helper()
	alloc := mainAndCleanup("1s")
	ar := agent.runner(alloc)
	go ar.Run()
	time.Sleep(10 * time.Second)
	ar.Shutdown()
	must.NoError(t, agent.db.PutAllocRunnerState(alloc.ID, &state.AllocRunnerState{KillReason: reason}))
	return alloc, agent.restart(ar, nil)
}

func TestAllocRunner_RestoredKillReasonHoldsAgainstAStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := newBoltAgent(t, mock.New(nil))
		defer agent.db.Close()
		alloc, ar := restoredWithKillReason(t, agent, state.KillReasonMaxRunDuration)

		// The servers stop the allocation before the new runner runs: the
		// recorded expiry still decides, so the poststop task never runs.
		stopByServers(ar, alloc)
		runToEnd(ar)

		a := ar.Alloc()
		mustEndedForMaxRun(t, a)
		mustKilledForMaxRun(t, a.TaskStates["main"], "main")
		must.True(t, a.TaskStates["cleanup"].StartedAt.IsZero())
		rs, err := agent.db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)
	})
}

func TestAllocRunner_RestoredKillReasonOfANewerAgent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := newBoltAgent(t, mock.New(nil))
		defer agent.db.Close()
		_, ar := restoredWithKillReason(t, agent, "a reason of a newer agent")
		back := time.Now()
		runToEnd(ar)

		// A reason this agent does not know still finishes the kill, and
		// lets nothing more start.
		a := ar.Alloc()
		must.Eq(t, back, a.TaskStates["main"].FinishedAt)
		must.NotNil(t, tasktest.LastEvent(a.TaskStates["main"], structs.TaskKilling))
		must.True(t, a.TaskStates["cleanup"].StartedAt.IsZero())
		must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
		must.Eq(t, descComplete, a.ClientDescription)
	})
}
