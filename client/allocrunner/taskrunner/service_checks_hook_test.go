package taskrunner

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/structs"
)

// execDriver is a mock driver whose tasks run commands: each exits with
// the code its function gives, and is recorded. It goes by raw_exec's
// name: only the drivers validation lets run scripts get to.
type execDriver struct {
	*mock.Driver
	mu    sync.Mutex
	code  func() int
	calls []string
}

func (d *execDriver) Name() string { return "raw_exec" }

func (d *execDriver) StartTask(cfg *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	h, err := d.Driver.StartTask(cfg)
	if h != nil {
		h.Driver = d.Name()
	}
	return h, err
}

func (d *execDriver) ExecTask(ctx context.Context, taskID string, cmd []string, timeout time.Duration) (*drivers.ExecResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, taskID+" "+cmd[0])
	return &drivers.ExecResult{ExitCode: d.code(), Output: []byte("checked")}, nil
}

func scriptCheckTask(restart *structs.CheckRestart, policy *structs.RestartPolicy) *structs.Task {
	task := testTask("web", map[string]any{"run_for": "1h"})
	task.Driver = "raw_exec" // execDriver's name
	task.RestartPolicy = policy
	task.Services = []*structs.Service{{Name: "web", Checks: []structs.ServiceCheck{{
		Name: "probe", Type: structs.CheckTypeScript, Command: "/bin/check",
		Interval: 10 * time.Second, Timeout: time.Second, CheckRestart: restart,
	}}}}
	return task
}

// A check that stays unhealthy restarts the task at its check_restart
// limit, past its grace, through the restart policy: the second restart
// uses up the policy's one attempt and fails the task.
func TestTaskRunner_CheckRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := scriptCheckTask(&structs.CheckRestart{Limit: 2, Grace: 5 * time.Second},
			&structs.RestartPolicy{Attempts: 1, Interval: time.Hour, Delay: 3 * time.Second, Mode: structs.RestartPolicyModeFail})
		h := newHarness(t, testAlloc(structs.JobTypeService, task))
		drv := &execDriver{Driver: h.driver, code: func() int { return 2 }}
		h.catalog = drivers.NewCatalog(drv)
		h.tr = h.newRunner()
		start := time.Now()
		h.run()

		synctest.Wait()
		st := h.tr.CheckStatuses()
		must.Len(t, 1, st)
		must.Eq(t, "failure", st[0].Status)
		must.Eq(t, "checked", st[0].Output)
		must.Eq(t, "web", st[0].Task)

		ts := h.waitDead()
		// Run 1: results at 0s (in grace), 10s and 20s; 3s delay; run 2
		// from 23s: results at 23s, 33s and 43s.
		must.Eq(t, 43*time.Second, time.Since(start))
		must.True(t, ts.Failed)
		must.Eq(t, uint64(1), ts.Restarts)
		must.Eq(t, 2, tasktest.CountEvents(ts, structs.TaskRestartSignal))
		ev := tasktest.LastEvent(ts, structs.TaskRestartSignal)
		must.Eq(t, `healthcheck: check "probe" unhealthy`, ev.RestartReason)
		must.Eq(t, structs.TaskNotRestarting, ts.Events[len(ts.Events)-1].Type)
		must.SliceEmpty(t, h.tr.CheckStatuses(), must.Sprint("no run, no checks"))
		drv.mu.Lock()
		defer drv.mu.Unlock()
		must.Len(t, 6, drv.calls)
		must.StrHasSuffix(t, " /bin/check", drv.calls[0])
		must.NotEq(t, drv.calls[0], drv.calls[5], must.Sprint("each run's checks exec in that run"))
	})
}

// A check that recovers before its limit does not restart the task.
func TestTaskRunner_CheckRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := scriptCheckTask(&structs.CheckRestart{Limit: 3},
			&structs.RestartPolicy{Attempts: 0, Interval: time.Hour, Mode: structs.RestartPolicyModeFail})
		h := newHarness(t, testAlloc(structs.JobTypeService, task))
		var n int
		drv := &execDriver{Driver: h.driver, code: func() int {
			n++
			if n%3 == 0 {
				return 0
			}
			return 2
		}}
		h.catalog = drivers.NewCatalog(drv)
		h.tr = h.newRunner()
		h.run()
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		ts := h.tr.TaskState()
		must.Eq(t, structs.TaskStateRunning, ts.State)
		must.Eq(t, 0, tasktest.CountEvents(ts, structs.TaskRestartSignal))
		h.kill(nil)
	})
}

// A driver that cannot run commands fails a script check, saying so.
func TestTaskRunner_ScriptCheckWithoutExec(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := scriptCheckTask(nil, nil)
		task.Driver = mock.DriverName
		h := newHarness(t, testAlloc(structs.JobTypeService, task))
		h.run()
		synctest.Wait()
		st := h.tr.CheckStatuses()
		must.Len(t, 1, st)
		must.Eq(t, "failure", st[0].Status)
		must.StrContains(t, st[0].Output, "cannot run a command")
		h.kill(nil)
	})
}

// An in-place update that changes a check starts the run's checks anew
// with it; one that changes nothing leaves them running.
func TestTaskRunner_ChecksFollowUpdates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := scriptCheckTask(nil, &structs.RestartPolicy{Interval: time.Hour, Mode: structs.RestartPolicyModeFail})
		alloc := testAlloc(structs.JobTypeService, task)
		h := newHarness(t, alloc)
		drv := &execDriver{Driver: h.driver, code: func() int { return 0 }}
		h.catalog = drivers.NewCatalog(drv)
		h.tr = h.newRunner()
		h.run()
		synctest.Wait()
		calls := func() []string {
			drv.mu.Lock()
			defer drv.mu.Unlock()
			return append([]string(nil), drv.calls...)
		}
		must.Len(t, 1, calls())

		same := alloc.Copy()
		h.tr.Update(same)
		synctest.Wait()
		must.Len(t, 1, calls(), must.Sprint("nothing changed: no probe out of turn"))

		changed := alloc.Copy()
		changed.Job.TaskGroups[0].Tasks[0].Services[0].Checks[0].Command = "/bin/other"
		h.tr.Update(changed)
		synctest.Wait()
		got := calls()
		must.Len(t, 2, got)
		must.StrHasSuffix(t, " /bin/other", got[1], must.Sprint("the new check probes at once"))
		time.Sleep(10 * time.Second)
		synctest.Wait()
		must.Len(t, 3, calls(), must.Sprint("one set of checks runs, not two"))
		h.kill(nil)
	})
}
