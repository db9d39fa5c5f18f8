package taskrunner

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/structs"
)

func TestTaskRunner_BatchTaskCompletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "10s", "stdout_string": "hello\n"})
		h := newBatchHarness(t, task)
		start := time.Now()
		h.run()
		ts := h.waitDead()

		must.Eq(t, 10*time.Second, time.Since(start))
		must.False(t, ts.Failed)
		must.Eq(t, []string{structs.TaskReceived, structs.TaskSetup, structs.TaskStarted, structs.TaskTerminated}, tasktest.EventTypes(ts))
		must.Eq(t, 0, tasktest.LastEvent(ts, structs.TaskTerminated).ExitCode)
		must.True(t, ts.StartedAt.Equal(start))
		must.True(t, ts.FinishedAt.Equal(start.Add(10*time.Second)))

		out, err := os.ReadFile(filepath.Join(h.taskDir.LogDir, "web.stdout.0"))
		must.NoError(t, err)
		must.Eq(t, "hello\n", string(out))

		// The run's handle is gone from the persisted state; the final state
		// is there.
		local, pts, err := h.db.GetTaskRunnerState(h.alloc.ID, "web")
		must.NoError(t, err)
		must.Nil(t, local.TaskHandle)
		must.Eq(t, structs.TaskStateDead, pts.State)
		must.Positive(t, h.updates.n.Load())
	})
}

func TestTaskRunner_PassesDirsEnvAndLogsToDriver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{
			"run_for":       "1h",
			"stdout_string": "${NOMAD_ALLOC_ID} ${NOMAD_META_owner} ${node.datacenter} ${attr.kernel.name} ${GREETING} ${UNKNOWN}",
		})
		task.Env = map[string]string{"GREETING": "hi from ${NOMAD_TASK_NAME}"}
		task.LogConfig = &structs.LogConfig{MaxFiles: 3, MaxFileSizeMB: 7}
		node := &structs.Node{ID: "n1", Datacenter: "dc9", Attributes: map[string]string{"kernel.name": "linux"}}
		alloc := testAlloc(structs.JobTypeBatch, task)
		rec := &recordingDriver{Driver: mock.New(nil)}
		h := newHarness(t, alloc, withNode(node), withDrivers(drivers.NewCatalog(rec)))
		h.run()
		synctest.Wait()

		cfg := rec.lastStarted(t)
		// The runner keeps and persists the handle without the env, which
		// only the start needs.
		local, _, err := h.db.GetTaskRunnerState(alloc.ID, "web")
		must.NoError(t, err)
		must.Eq(t, cfg.ID, local.TaskHandle.Config.ID)
		must.Eq(t, cfg.Config, local.TaskHandle.Config.Config)
		must.Nil(t, local.TaskHandle.Config.Env)
		must.Nil(t, h.tr.currentHandle().Config.Env)
		must.Eq(t, alloc.ID, cfg.AllocID)
		must.Eq(t, "web", cfg.TaskGroupName)
		must.Eq(t, "example", cfg.JobName)
		must.Eq(t, h.taskDir.Dir, cfg.TaskDir)
		must.Eq(t, h.taskDir.SharedDir, cfg.AllocDir)
		must.Eq(t, filepath.Join(h.taskDir.LogDir, "web.stdout"), cfg.StdoutPath)
		must.Eq(t, filepath.Join(h.taskDir.LogDir, "web.stderr"), cfg.StderrPath)
		must.Eq(t, 3, cfg.LogMaxFiles)
		must.Eq(t, 7, cfg.LogMaxFileSizeMB)
		must.Eq(t, alloc.ID+" ops dc9 linux hi from web ${UNKNOWN}", cfg.Config["stdout_string"].(string))
		must.Eq(t, "hi from web", cfg.Env["GREETING"])
		must.Eq(t, h.taskDir.LocalDir, cfg.Env["NOMAD_TASK_DIR"])
		must.Eq(t, "2", cfg.Env["NOMAD_ALLOC_INDEX"])
		// The task's own config is untouched.
		must.StrContains(t, task.Config["stdout_string"].(string), "${NOMAD_ALLOC_ID}")

		for _, dir := range []string{h.taskDir.LocalDir, h.taskDir.SecretsDir, h.taskDir.TmpDir} {
			fi, err := os.Stat(dir)
			must.NoError(t, err)
			must.True(t, fi.IsDir())
		}
		h.kill(nil)
	})
}

func TestTaskRunner_RestartPolicyModeFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1s", "exit_code": 2})
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 2, Interval: time.Hour, Delay: 10 * time.Second, Mode: structs.RestartPolicyModeFail}
		h := newBatchHarness(t, task)
		start := time.Now()
		h.run()
		ts := h.waitDead()

		// Three runs of 1s with two delays of 10s between them.
		must.Eq(t, 23*time.Second, time.Since(start))
		must.True(t, ts.Failed)
		must.Eq(t, uint64(2), ts.Restarts)
		// The last ten events: the tail of run 1, runs 2 and 3.
		must.Eq(t, []string{
			structs.TaskTerminated, structs.TaskRestarting,
			structs.TaskSetup, structs.TaskStarted, structs.TaskTerminated, structs.TaskRestarting,
			structs.TaskSetup, structs.TaskStarted, structs.TaskTerminated, structs.TaskNotRestarting,
		}, tasktest.EventTypes(ts))
		must.Eq(t, 10*time.Second, time.Duration(tasktest.LastEvent(ts, structs.TaskRestarting).StartDelay))
		nr := tasktest.LastEvent(ts, structs.TaskNotRestarting)
		must.NotNil(t, nr)
		must.True(t, nr.FailsTask)
		must.Eq(t, structs.TaskNotRestarting, ts.Events[len(ts.Events)-1].Type)
		must.Eq(t, 2, tasktest.LastEvent(ts, structs.TaskTerminated).ExitCode)
	})
}

func TestTaskRunner_ServiceTaskExitingZeroIsRestarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1s"})
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 1, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
		h := newHarness(t, testAlloc(structs.JobTypeService, task))
		h.run()
		ts := h.waitDead()
		must.Eq(t, uint64(1), ts.Restarts)
		must.Eq(t, 2, tasktest.CountEvents(ts, structs.TaskStarted))
		must.True(t, ts.Failed)
	})
}

func TestTaskRunner_RestartPolicyModeDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1s", "exit_code": 1})
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 1, Interval: time.Minute, Delay: 5 * time.Second, Mode: structs.RestartPolicyModeDelay}
		h := newBatchHarness(t, task)
		h.run()

		// Run 1 ends at 1s (restart after 5s); run 2 ends at 7s, over the
		// attempts: wait for the interval, which opened at 1s, to end at
		// 61s.
		time.Sleep(60 * time.Second)
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStatePending, ts.State)
		must.Eq(t, 2, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, 54*time.Second, time.Duration(tasktest.LastEvent(ts, structs.TaskRestarting).StartDelay))

		time.Sleep(1500 * time.Millisecond)
		ts = h.tr.TaskState()
		must.Eq(t, structs.TaskStateRunning, ts.State)
		must.Eq(t, 3, tasktest.CountEvents(ts, structs.TaskStarted))
		must.False(t, ts.Failed)
		h.kill(nil)
		must.False(t, h.tr.TaskState().Failed)
	})
}

func TestTaskRunner_KillTimeoutEscalation(t *testing.T) {
	cases := []struct {
		name       string
		killAfter  string
		wantSignal syscall.Signal
		wantTook   time.Duration
	}{
		{name: "task ignores its signal past kill_timeout", killAfter: "1m", wantSignal: syscall.SIGKILL, wantTook: 5 * time.Second},
		{name: "task honours its signal within kill_timeout", killAfter: "2s", wantSignal: syscall.SIGTERM, wantTook: 2 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				task := testTask("web", map[string]any{"run_for": "1h", "kill_after": c.killAfter})
				task.KillSignal = "SIGTERM"
				h := newBatchHarness(t, task)
				h.run()
				synctest.Wait()
				must.Eq(t, structs.TaskStateRunning, h.tr.TaskState().State)
				taskID := h.tr.currentHandle().Config.ID

				start := time.Now()
				h.kill(nil)
				must.Eq(t, c.wantTook, time.Since(start))

				ts := h.tr.TaskState()
				must.Eq(t, structs.TaskStateDead, ts.State)
				must.False(t, ts.Failed)
				must.Eq(t, []string{structs.TaskReceived, structs.TaskSetup, structs.TaskStarted,
					structs.TaskKilling, structs.TaskTerminated, structs.TaskKilled}, tasktest.EventTypes(ts))
				must.Eq(t, 5*time.Second, tasktest.LastEvent(ts, structs.TaskKilling).KillTimeout)
				must.Eq(t, int(c.wantSignal), tasktest.LastEvent(ts, structs.TaskTerminated).Signal)
				must.Eq(t, "", tasktest.LastEvent(ts, structs.TaskKilled).KillError)
				// The driver has released the run.
				_, err := h.driver.InspectTask(taskID)
				must.Error(t, err)
			})
		})
	}
}

func TestTaskRunner_KillWithReason(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1h"}))
		h.run()
		synctest.Wait()
		h.kill(NewKillingEvent(structs.AllocTimeoutReasonMaxRunDuration))
		ts := h.tr.TaskState()
		killing := tasktest.LastEvent(ts, structs.TaskKilling)
		must.Eq(t, structs.AllocTimeoutReasonMaxRunDuration, killing.DisplayMessage)
		must.Eq(t, 5*time.Second, killing.KillTimeout)
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskKilling))

		// A second kill of a dead task changes nothing.
		h.kill(NewLeaderDeadEvent())
		must.Eq(t, ts.Events, h.tr.TaskState().Events)
	})
}

func TestTaskRunner_KillEventOtherThanKilling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1h"}))
		h.run()
		synctest.Wait()
		h.kill(NewLeaderDeadEvent())
		ts := h.tr.TaskState()
		must.Eq(t, []string{structs.TaskReceived, structs.TaskSetup, structs.TaskStarted,
			structs.TaskLeaderDead, structs.TaskKilling, structs.TaskTerminated, structs.TaskKilled}, tasktest.EventTypes(ts))
	})
}

func TestTaskRunner_KillCancelsSlowStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1h", "start_block_for": "10m"}))
		h.run()
		time.Sleep(time.Minute)
		must.Eq(t, structs.TaskStatePending, h.tr.TaskState().State)

		start := time.Now()
		h.kill(nil)
		must.Less(t, time.Second, time.Since(start))
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStateDead, ts.State)
		must.True(t, ts.StartedAt.IsZero())
		must.False(t, ts.Failed)
		must.Eq(t, 0, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, 0, tasktest.CountEvents(ts, structs.TaskDriverFailure))
	})
}

func TestTaskRunner_KillDuringRestartDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1s", "exit_code": 1})
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 3, Interval: time.Hour, Delay: time.Minute, Mode: structs.RestartPolicyModeFail}
		h := newBatchHarness(t, task)
		h.run()
		time.Sleep(10 * time.Second)
		must.Eq(t, structs.TaskStatePending, h.tr.TaskState().State)

		start := time.Now()
		h.kill(nil)
		must.Eq(t, time.Duration(0), time.Since(start))
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStateDead, ts.State)
		must.False(t, ts.Failed)
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, structs.TaskKilled, ts.Events[len(ts.Events)-1].Type)

		// Long after the delay, nothing has started again.
		time.Sleep(time.Hour)
		must.Eq(t, 1, tasktest.CountEvents(h.tr.TaskState(), structs.TaskStarted))
	})
}

func TestTaskRunner_KillBeforeStartGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1s"}), withGate(gate))
		h.run()
		time.Sleep(time.Hour)
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStatePending, ts.State)
		must.Eq(t, []string{structs.TaskReceived}, tasktest.EventTypes(ts))

		h.kill(NewKillingEvent("stopped early"))
		ts = h.tr.TaskState()
		must.Eq(t, structs.TaskStateDead, ts.State)
		must.True(t, ts.StartedAt.IsZero())
		must.Eq(t, []string{structs.TaskReceived, structs.TaskKilling}, tasktest.EventTypes(ts))

		close(gate)
		synctest.Wait()
		must.Eq(t, 0, tasktest.CountEvents(h.tr.TaskState(), structs.TaskStarted))
	})
}

func TestTaskRunner_StartGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1s"}), withGate(gate))
		h.run()
		time.Sleep(time.Minute)
		must.Eq(t, structs.TaskStatePending, h.tr.TaskState().State)
		close(gate)
		ts := h.waitDead()
		must.False(t, ts.Failed)
		must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted))
	})
}

func TestTaskRunner_ShutdownDelay(t *testing.T) {
	cases := []struct {
		name      string
		skip      bool
		wantTook  time.Duration
		wantEvent string
	}{
		{name: "waits", wantTook: 10 * time.Second, wantEvent: structs.TaskWaitingShuttingDelay},
		{name: "skipped on request", skip: true, wantTook: 0, wantEvent: structs.TaskSkippingShutdownDelay},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				task := testTask("web", map[string]any{"run_for": "1h"})
				task.ShutdownDelay = 10 * time.Second
				alloc := testAlloc(structs.JobTypeBatch, task)
				if c.skip {
					skip := true
					alloc.DesiredTransition.NoShutdownDelay = &skip
				}
				h := newHarness(t, alloc)
				h.run()
				synctest.Wait()
				start := time.Now()
				h.kill(nil)
				must.Eq(t, c.wantTook, time.Since(start))
				must.NotNil(t, tasktest.LastEvent(h.tr.TaskState(), c.wantEvent))
			})
		})
	}
}

func TestTaskRunner_StartErrors(t *testing.T) {
	cases := []struct {
		name      string
		task      *structs.Task
		wantRuns  int
		wantEvent string
	}{
		{
			name:      "unrecoverable driver error fails at once",
			task:      testTask("web", map[string]any{"start_error": "no such image"}),
			wantEvent: structs.TaskDriverFailure,
		},
		{
			name: "recoverable driver error is retried",
			task: func() *structs.Task {
				t := testTask("web", map[string]any{"start_error": "busy", "start_error_recoverable": true})
				t.RestartPolicy.Attempts = 2
				return t
			}(),
			wantRuns:  2,
			wantEvent: structs.TaskDriverFailure,
		},
		{
			name:      "invalid config",
			task:      testTask("web", map[string]any{"run_for": "soon"}),
			wantEvent: structs.TaskDriverFailure,
		},
		{
			name: "unknown driver",
			task: func() *structs.Task {
				t := testTask("web", nil)
				t.Driver = "docker"
				return t
			}(),
			wantEvent: structs.TaskDriverFailure,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newBatchHarness(t, c.task)
				h.run()
				ts := h.waitDead()
				must.True(t, ts.Failed)
				must.True(t, ts.StartedAt.IsZero())
				must.Eq(t, uint64(c.wantRuns), ts.Restarts)
				must.NotNil(t, tasktest.LastEvent(ts, c.wantEvent))
				must.Eq(t, structs.TaskNotRestarting, ts.Events[len(ts.Events)-1].Type)
			})
		})
	}
}

func TestTaskRunner_Restart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1h"}))
		h.run()
		synctest.Wait()
		first := h.tr.currentHandle().Config.ID

		must.NoError(t, h.tr.Restart(context.Background(), NewRestartSignalEvent("operator asked")))
		synctest.Wait()
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStateRunning, ts.State)
		must.Eq(t, uint64(1), ts.Restarts)
		must.Eq(t, 2, tasktest.CountEvents(ts, structs.TaskStarted))
		must.Eq(t, "operator asked", tasktest.LastEvent(ts, structs.TaskRestartSignal).RestartReason)
		must.NotEq(t, first, h.tr.currentHandle().Config.ID)

		h.kill(nil)
		must.ErrorIs(t, h.tr.Restart(context.Background(), nil), ErrTaskNotRunning)
	})
}

func TestTaskRunner_Signal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newBatchHarness(t, testTask("web", map[string]any{"run_for": "1h"}))
		must.ErrorIs(t, h.tr.Signal("SIGHUP", "reload"), ErrTaskNotRunning)
		h.run()
		synctest.Wait()
		must.NoError(t, h.tr.Signal("SIGHUP", "reload"))
		must.Error(t, h.tr.Signal("SIGNOPE", ""))
		got, err := h.driver.ReceivedSignals(h.tr.currentHandle().Config.ID)
		must.NoError(t, err)
		must.Eq(t, []string{"SIGHUP"}, got)
		ev := tasktest.LastEvent(h.tr.TaskState(), structs.TaskSignaling)
		must.Eq(t, "SIGHUP", ev.TaskSignal)
		must.Eq(t, "reload", ev.TaskSignalReason)
		h.kill(nil)
	})
}

func TestTaskRunner_KeepsLastTenEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1s", "exit_code": 1})
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 5, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
		h := newBatchHarness(t, task)
		h.run()
		ts := h.waitDead()
		must.Len(t, maxTaskEvents, ts.Events)
		must.Eq(t, uint64(5), ts.Restarts)
		must.Eq(t, structs.TaskNotRestarting, ts.Events[maxTaskEvents-1].Type)
	})
}

func TestTaskRunner_UpdateAppliesToNextRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := testTask("web", map[string]any{"run_for": "1h", "stdout_string": "v1\n"})
		alloc := testAlloc(structs.JobTypeBatch, task)
		h := newHarness(t, alloc)
		h.run()
		synctest.Wait()

		next := alloc.Copy()
		next.Job.TaskGroups[0].Tasks[0].Config["stdout_string"] = "v2\n"
		h.tr.Update(next)
		must.NoError(t, h.tr.Restart(context.Background(), nil))
		synctest.Wait()
		must.Eq(t, "v2\n", h.tr.currentHandle().Config.Config["stdout_string"].(string))
		out, err := os.ReadFile(filepath.Join(h.taskDir.LogDir, "web.stdout.0"))
		must.NoError(t, err)
		must.Eq(t, "v1\nv2\n", string(out))
		h.kill(nil)
	})
}
