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

// The allocations of testdata/restore-v1 (see its README).
const (
	oldExceededAlloc = "11111111-1111-4111-8111-111111111111"
	oldPendingAlloc  = "22222222-2222-4222-8222-222222222222"
)

// openOldDataDir copies the data dir of testdata/restore-v1 into a fresh
// directory and opens its state DB, as an upgraded agent does.
func openOldDataDir(t *testing.T) (dataDir string, db state.StateDB) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "restore-v1", "client", "state.db"))
	must.NoError(t, err)
	dataDir = t.TempDir()
	must.NoError(t, os.MkdirAll(filepath.Join(dataDir, "client"), 0o700))
	must.NoError(t, os.WriteFile(filepath.Join(dataDir, "client", "state.db"), data, 0o600))
	db, err = state.OpenBoltStateDB(nil, filepath.Join(dataDir, "client"))
	must.NoError(t, err)
	return dataDir, db
}

// reviveTasks starts, in driver, the task of every recorded handle of
// alloc: the processes the old agent left running outlive it, and the new
// agent finds them still there.
func reviveTasks(t *testing.T, db state.StateDB, driver *mock.Driver, alloc *structs.Allocation) {
	t.Helper()
	for _, task := range alloc.LookupTaskGroup().Tasks {
		local, _, err := db.GetTaskRunnerState(alloc.ID, task.Name)
		must.NoError(t, err)
		if local == nil || local.TaskHandle == nil {
			continue
		}
		cfg := *local.TaskHandle.Config
		// No logs: the paths are the old agent's.
		cfg.StdoutPath, cfg.StderrPath = "", ""
		_, err = driver.StartTask(&cfg)
		must.NoError(t, err)
	}
}

func TestAllocRunner_RestoresDataDirWrittenBeforeKillReasons(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The bubble's clock starts in 2000, before the allocations were
		// created (2026): by the clock, neither deadline has passed yet.
		// Only the recorded expiry can kill the first at once, and the
		// second must wait for its own CreateTime plus budget, years
		// after the restore.
		dataDir, db := openOldDataDir(t)
		defer db.Close()
		allocs, bad, err := db.GetAllAllocations()
		must.NoError(t, err)
		must.MapEmpty(t, bad)
		must.Len(t, 2, allocs)
		byID := map[string]*structs.Allocation{}
		for _, a := range allocs {
			byID[a.ID] = a
		}
		exceeded, pending := byID[oldExceededAlloc], byID[oldPendingAlloc]
		must.NotNil(t, exceeded)
		must.NotNil(t, pending)

		rs, err := db.GetAllocRunnerState(exceeded.ID)
		must.NoError(t, err)
		must.Eq(t, &state.AllocRunnerState{KillReason: state.KillReasonMaxRunDuration}, rs,
			must.Sprint("the old bool reads as the max_run_duration kill reason"))

		driver := mock.New(nil)
		catalog := drivers.NewCatalog(driver)
		handler := &recorder{}
		restore := func(alloc *structs.Allocation) *AllocRunner {
			reviveTasks(t, db, driver, alloc)
			ar, err := NewAllocRunner(&Config{
				Alloc: alloc, AllocDirRoot: filepath.Join(dataDir, "alloc"), StateDB: db, Drivers: catalog, StateUpdater: handler,
				// The gauges' refresh would tick every second of the
				// years the bubble's clock goes through.
				MetricsCollectionInterval: 1000 * time.Hour,
			})
			must.NoError(t, err)
			must.NoError(t, ar.Restore())
			go ar.Run()
			return ar
		}
		back := time.Now()
		arE, arP := restore(exceeded), restore(pending)
		synctest.Wait()
		for _, ar := range []*AllocRunner{arE, arP} {
			main := ar.Alloc().TaskStates["main"]
			must.Eq(t, structs.TaskStateRunning, main.State)
			must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted), must.Sprint("re-attached, not restarted"))
		}

		// The exceeded allocation: the new agent finishes the recorded
		// kill, shutdown_delay and all, and the poststop task never runs.
		<-arE.WaitCh()
		a := arE.Alloc()
		mustEndedForMaxRun(t, a)
		main := a.TaskStates["main"]
		must.Eq(t, back.Add(time.Hour), main.FinishedAt)
		mustKilledForMaxRun(t, main, "main")
		must.True(t, a.TaskStates["cleanup"].StartedAt.IsZero())
		rs, err = db.GetAllocRunnerState(exceeded.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)

		// The pending allocation: its deadline is its CreateTime plus its
		// 2h budget, not a budget started afresh at the restore.
		deadline := time.Unix(0, pending.CreateTime).Add(2 * time.Hour)
		must.Eq(t, deadline, pending.MaxRun().Deadline)
		time.Sleep(time.Until(deadline) - time.Nanosecond)
		synctest.Wait()
		must.Eq(t, structs.TaskStateRunning, arP.Alloc().TaskStates["main"].State)
		<-arP.WaitCh()
		a = arP.Alloc()
		mustEndedForMaxRun(t, a)
		main = a.TaskStates["main"]
		must.Eq(t, deadline, main.FinishedAt)
		mustKilledForMaxRun(t, main, "main")
		must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted))
		rs, err = db.GetAllocRunnerState(pending.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)
	})
}
