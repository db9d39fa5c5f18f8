package maxrunstats

import (
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// statsAlloc is a running allocation of job "bounded" (name "Bounded")
// whose group "group" has a 10s budget and whose task "task" one of 5s.
func statsAlloc(modified time.Time) *structs.Allocation {
	job := fixture.Job("bounded")
	job.Name = "Bounded"
	job.TaskGroups[0].MaxRunDuration = new(10 * time.Second)
	job.TaskGroups[0].Tasks[0].MaxRunDuration = new(5 * time.Second)
	a := fixture.Alloc(job, "node-1")
	a.ModifyTime = modified.UnixNano()
	a.TaskStates = map[string]*structs.TaskState{"task": {State: structs.TaskStateRunning, RunnerStartedAt: time.Unix(0, a.CreateTime)}}
	return a
}

func TestMaxRunStats_CountsTimeoutsReportedSinceTheStart(t *testing.T) {
	m, sink := fixture.StatsSink(t)
	started := time.Now()
	stats := New(started, m)
	group := map[string]string{"namespace": "default", "job": "Bounded", "task_group": "group"}
	task := map[string]string{"namespace": "default", "job": "Bounded", "task_group": "group", "task": "task"}

	running := statsAlloc(started.Add(time.Second))
	taskKilled := running.Copy()
	taskKilled.TaskStates["task"].MaxRunExceeded = true
	stopped := taskKilled.Copy()
	stopped.ClientStatus, stopped.ClientDescription = structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration
	change := func(before, after *structs.Allocation) memdb.Changes {
		return memdb.Changes{{Table: state.TableAllocs, Before: before, After: after}}
	}

	stats.Observe(change(nil, running))
	stats.Observe(change(running, taskKilled))
	stats.Observe(change(taskKilled, stopped))
	// Later changes of what already timed out count nothing.
	again := stopped.Copy()
	again.DesiredStatus = structs.AllocDesiredStatusStop
	stats.Observe(change(stopped, again))
	// Nor do other tables.
	stats.Observe(memdb.Changes{{Table: state.TableJobs, After: running.Job}})

	total, _ := fixture.CounterTotal(sink, MetricExceeded, group)
	must.Eq(t, 1.0, total)
	total, _ = fixture.CounterTotal(sink, MetricTaskExceeded, task)
	must.Eq(t, 1.0, total)

	// A timeout reported before this server started (a replayed log) is
	// not counted.
	old := statsAlloc(started.Add(-time.Minute))
	oldStopped := old.Copy()
	oldStopped.ClientStatus, oldStopped.ClientDescription = structs.AllocClientStatusFailed, structs.AllocTimeoutReasonMaxRunDuration
	stats.Observe(change(old, oldStopped))
	total, _ = fixture.CounterTotal(sink, MetricExceeded, group)
	must.Eq(t, 1.0, total)
}

func TestMaxRunStats_RunningGauges(t *testing.T) {
	m, sink := fixture.StatsSink(t)
	stats := New(time.Now(), m)
	group := map[string]string{"namespace": "default", "job": "Bounded", "task_group": "group"}
	a, b := statsAlloc(time.Now()), statsAlloc(time.Now())
	unbounded := fixture.Alloc(fixture.Job("free"), "node-1")
	done := statsAlloc(time.Now())
	done.ClientStatus = structs.AllocClientStatusComplete
	stopping := statsAlloc(time.Now())
	stopping.DesiredStatus = structs.AllocDesiredStatusStop

	stats.count([]*structs.Allocation{a, b, unbounded, done, stopping})
	n, ok := fixture.GaugeValue(sink, MetricRunning, group)
	must.True(t, ok)
	must.Eq(t, float32(2), n)
	_, ok = fixture.GaugeValue(sink, MetricRunning, map[string]string{"namespace": "default", "job": "free", "task_group": "group"})
	must.False(t, ok, must.Sprint("no deadline, no series"))
	// The counters exist before the first timeout, at 0.
	total, emissions := fixture.CounterTotal(sink, MetricExceeded, group)
	must.Eq(t, 0.0, total)
	must.Positive(t, emissions)
	_, emissions = fixture.CounterTotal(sink, MetricTaskExceeded, map[string]string{"namespace": "default", "job": "Bounded", "task_group": "group", "task": "task"})
	must.Positive(t, emissions)

	// Once they have all ended the gauge says 0, once.
	stats.count(nil)
	n, _ = fixture.GaugeValue(sink, MetricRunning, group)
	must.Eq(t, float32(0), n)
	must.MapEmpty(t, stats.running)
}
