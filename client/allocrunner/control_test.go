package allocrunner

import (
	"os"
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

func TestAllocRunner_DestroyBeforeRunKillsRestoredTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		driver := mock.New(nil)
		agent := newBoltAgent(t, driver)
		defer agent.db.Close()
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		ar := agent.runner(alloc)
		go ar.Run()
		time.Sleep(10 * time.Second)
		local, _, err := agent.db.GetTaskRunnerState(alloc.ID, "main")
		must.NoError(t, err)
		taskID := local.TaskHandle.Config.ID

		// The next agent destroys the restored allocation before running
		// it: the task the old agent left running must not be left behind.
		ar = agent.restart(ar, nil)
		ar.Destroy()

		_, err = driver.InspectTask(taskID)
		must.ErrorIs(t, err, drivers.ErrTaskNotFound, must.Sprint("the task was killed and released"))
		last := agent.handler.last()
		must.NotNil(t, last)
		main := last.TaskStates["main"]
		must.Eq(t, structs.TaskStateDead, main.State)
		must.NotNil(t, tasktest.LastEvent(main, structs.TaskKilling))
		must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted), must.Sprint("re-attached, then killed"))
		_, err = os.Stat(ar.allocDir.AllocDir)
		must.True(t, os.IsNotExist(err))
		allocs, _, err := agent.db.GetAllAllocations()
		must.NoError(t, err)
		must.SliceEmpty(t, allocs)
	})
}

func TestAllocRunner_DestroyCutShortByShutdownLeavesTheKillToTheNextAgent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		driver := mock.New(nil)
		agent := newBoltAgent(t, driver)
		defer agent.db.Close()
		// The group's shutdown_delay holds the destroy's kill back for 20s.
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		delay := 20 * time.Second
		alloc.Job.TaskGroups[0].ShutdownDelay = &delay
		ar := agent.runner(alloc)
		go ar.Run()
		time.Sleep(10 * time.Second)

		destroyed := make(chan struct{})
		go func() {
			defer close(destroyed)
			ar.Destroy()
		}()
		time.Sleep(5 * time.Second)
		ar.Shutdown()
		<-destroyed

		// The agent stopped first: the task runs on, and the directory and
		// state stay, with the destroy recorded.
		local, persisted, err := agent.db.GetTaskRunnerState(alloc.ID, "main")
		must.NoError(t, err)
		must.NotNil(t, persisted, must.Sprint("the task's state was deleted"))
		must.Eq(t, structs.TaskStateRunning, persisted.State)
		status, err := driver.InspectTask(local.TaskHandle.Config.ID)
		must.NoError(t, err)
		must.Eq(t, drivers.TaskStateRunning, status.State)
		must.DirExists(t, ar.allocDir.AllocDir)
		rs, err := agent.db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonDestroyed, rs.KillReason)

		// The next agent finishes the kill.
		back := time.Now()
		ar = agent.restart(ar, nil)
		runToEnd(ar)
		main := ar.Alloc().TaskStates["main"]
		must.Eq(t, structs.TaskStateDead, main.State)
		must.Eq(t, back.Add(delay), main.FinishedAt)
		must.Eq(t, 1, tasktest.CountEvents(main, structs.TaskStarted))
		ar.Destroy()
	})
}

func TestAllocRunner_UpdateAfterDestroyIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		h := newARHarness(t, alloc)
		go h.ar.Run()
		synctest.Wait()
		h.ar.Destroy()

		next := alloc.Copy()
		next.Job.Version = 1
		h.ar.Update(next)
		// Nothing of the destroyed allocation comes back to the state DB
		// for the next agent to restore.
		allocs, _, err := h.db.GetAllAllocations()
		must.NoError(t, err)
		must.SliceEmpty(t, allocs)
		must.Eq(t, uint64(0), h.ar.Alloc().Job.Version)
	})
}
