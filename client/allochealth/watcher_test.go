package allochealth

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// recorder is the next handler: it keeps every state it is told of.
type recorder struct {
	mu  sync.Mutex
	got []*structs.Allocation
}

func (r *recorder) AllocStateUpdated(a *structs.Allocation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, a)
}

func (r *recorder) last() *structs.Allocation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[len(r.got)-1]
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func deployedAlloc(check string) *structs.Allocation {
	job := &structs.Job{ID: "web", Type: structs.JobTypeService, TaskGroups: []*structs.TaskGroup{{
		Name: "g",
		Tasks: []*structs.Task{
			{Name: "main"},
			{Name: "init", Lifecycle: &structs.TaskLifecycle{Hook: structs.TaskLifecycleHookPrestart}},
		},
		Update: &structs.UpdateStrategy{
			MaxParallel: 1, HealthCheck: check,
			MinHealthyTime: 10 * time.Second, HealthyDeadline: time.Minute,
		},
	}}}
	return &structs.Allocation{
		ID: "a1", JobID: "web", Job: job, TaskGroup: "g", DeploymentID: "d1",
		ClientStatus: structs.AllocClientStatusPending,
	}
}

// running returns a copy of a with its main task running since started.
func running(a *structs.Allocation, started time.Time) *structs.Allocation {
	c := *a
	c.ClientStatus = structs.AllocClientStatusRunning
	c.TaskStates = map[string]*structs.TaskState{
		"main": {State: structs.TaskStateRunning, StartedAt: started},
		"init": {State: structs.TaskStateDead, StartedAt: started, FinishedAt: started},
	}
	return &c
}

func TestWatcher_healthyAfterMinHealthyTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{}
		w := New(r)
		defer w.Stop()
		a := deployedAlloc(structs.UpdateHealthTaskStates)
		w.AllocStateUpdated(a)
		must.Nil(t, r.last().DeploymentStatus)

		w.AllocStateUpdated(running(a, time.Now()))
		must.Nil(t, r.last().DeploymentStatus, must.Sprint("not before min_healthy_time"))
		time.Sleep(9 * time.Second)
		synctest.Wait()
		must.Eq(t, 2, r.count())

		time.Sleep(time.Second)
		synctest.Wait()
		must.Eq(t, 3, r.count())
		must.True(t, r.last().DeploymentStatus.IsHealthy())
		must.Eq(t, structs.AllocClientStatusRunning, r.last().ClientStatus)

		// A later state keeps the decision.
		w.AllocStateUpdated(running(a, time.Now()))
		must.True(t, r.last().DeploymentStatus.IsHealthy())
	})
}

func TestWatcher_restartResetsMinHealthyTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{}
		w := New(r)
		defer w.Stop()
		a := deployedAlloc(structs.UpdateHealthChecks) // no checks run: task states decide
		start := time.Now()
		w.AllocStateUpdated(running(a, start))
		time.Sleep(8 * time.Second)
		restarted := running(a, start)
		restarted.TaskStates["main"].LastRestart = time.Now()
		restarted.TaskStates["main"].Restarts = 1
		w.AllocStateUpdated(restarted)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		must.Nil(t, r.last().DeploymentStatus, must.Sprint("10s from the restart, not the first start"))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		must.True(t, r.last().DeploymentStatus.IsHealthy())
	})
}

func TestWatcher_unhealthy(t *testing.T) {
	cases := map[string]func(a *structs.Allocation) *structs.Allocation{
		"task failed": func(a *structs.Allocation) *structs.Allocation {
			c := running(a, time.Now())
			c.TaskStates["main"].Failed = true
			return c
		},
		"allocation ended": func(a *structs.Allocation) *structs.Allocation {
			c := running(a, time.Now())
			c.ClientStatus = structs.AllocClientStatusComplete
			return c
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &recorder{}
				w := New(r)
				defer w.Stop()
				a := deployedAlloc(structs.UpdateHealthTaskStates)
				w.AllocStateUpdated(a)
				w.AllocStateUpdated(change(a))
				must.True(t, r.last().DeploymentStatus.IsUnhealthy())
			})
		})
	}
}

func TestWatcher_healthyDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{}
		w := New(r)
		defer w.Stop()
		a := deployedAlloc(structs.UpdateHealthTaskStates)
		w.AllocStateUpdated(a) // pending for ever
		time.Sleep(59 * time.Second)
		synctest.Wait()
		must.Nil(t, r.last().DeploymentStatus)
		time.Sleep(time.Second)
		synctest.Wait()
		must.True(t, r.last().DeploymentStatus.IsUnhealthy())
	})
}

func TestWatcher_nothingToDecide(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		manual := deployedAlloc(structs.UpdateHealthManual)
		noDeployment := deployedAlloc(structs.UpdateHealthTaskStates)
		noDeployment.DeploymentID = ""
		for _, a := range []*structs.Allocation{manual, noDeployment} {
			r := &recorder{}
			w := New(r)
			w.AllocStateUpdated(running(a, time.Now()))
			time.Sleep(2 * time.Minute)
			synctest.Wait()
			must.Eq(t, 1, r.count())
			must.Nil(t, r.last().DeploymentStatus)
			w.Stop()
		}
	})
}
