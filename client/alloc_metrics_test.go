package client

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	metrics "github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestTaskCPU(t *testing.T) {
	prev := map[int]pidTicks{
		10: {start: 5, user: 100, system: 20},
		11: {start: 6, user: 50, system: 50}, // exits
		12: {start: 7, user: 500, system: 0}, // its PID is reused
	}
	cur := map[int]pidTicks{
		10: {start: 5, user: 150, system: 30}, // +50, +10
		12: {start: 90, user: 20, system: 5},  // a new process: all of it
		13: {start: 95, user: 30, system: 5},  // a new process: all of it
	}
	user, system, ok := taskCPU(prev, cur, 2*time.Second)
	must.True(t, ok)
	// 100 user and 20 system ticks of 1/100 s over 2 s.
	must.Eq(t, 50.0, user)
	must.Eq(t, 10.0, system)

	// A counter that went back counts for nothing rather than wrapping.
	user, _, ok = taskCPU(map[int]pidTicks{1: {start: 1, user: 10}}, map[int]pidTicks{1: {start: 1, user: 5}}, time.Second)
	must.True(t, ok)
	must.Eq(t, 0.0, user)

	for name, tc := range map[string]struct {
		prev, cur map[int]pidTicks
		elapsed   time.Duration
	}{
		"no previous sample": {nil, cur, time.Second},
		"no current sample":  {prev, nil, time.Second},
		"no time passed":     {prev, cur, 0},
	} {
		_, _, ok := taskCPU(tc.prev, tc.cur, tc.elapsed)
		must.False(t, ok, must.Sprint(name))
	}
}

// runningAlloc is an allocation of job "web" whose tasks are in the given
// states.
func runningAlloc(id string, states map[string]string) *structs.Allocation {
	a := &structs.Allocation{
		ID: id, Namespace: "prod", JobID: "web-id", TaskGroup: "frontend",
		Job: &structs.Job{ID: "web-id", Name: "web", TaskGroups: []*structs.TaskGroup{{
			Name: "frontend",
			Tasks: []*structs.Task{
				{Name: "app", Resources: &structs.Resources{CPU: 250, MemoryMB: 128}},
				{Name: "sidecar"},
			},
		}}},
		TaskResources: map[string]*structs.Resources{
			"app": {CPU: 200, Cores: 1, MemoryMB: 100},
		},
		TaskStates: map[string]*structs.TaskState{},
	}
	for name, st := range states {
		a.TaskStates[name] = &structs.TaskState{State: st}
	}
	return a
}

func TestAllocMetrics_RunningTasksOnly(t *testing.T) {
	node := nodeMetricLabels(testNode())
	asked := 0
	am := newAllocMetrics(node, 1000, 2000, func(string, string) (int, int, bool) {
		asked++
		return 0, 0, false // a driver that does not tell its process
	})
	a := runningAlloc("a1", map[string]string{"app": structs.TaskStateRunning, "sidecar": structs.TaskStateRunning, "init": structs.TaskStateDead})
	rec := newGaugeRecorder()
	am.collect(rec, time.Now(), []*structs.Allocation{a})
	must.Eq(t, 2, asked, must.Sprint("only running tasks are looked up"))

	app := withLabels([]metrics.Label{
		{Name: "alloc_id", Value: "a1"},
		{Name: "job", Value: "web"},
		{Name: "namespace", Value: "prod"},
		{Name: "task_group", Value: "frontend"},
		{Name: "task", Value: "app"},
	}, node...)
	v, ok := rec.value(metricAllocMemoryAllocated, app)
	must.True(t, ok)
	must.Eq(t, float32(100<<20), v, must.Sprint("the allocation's record wins over the job's ask"))
	v, _ = rec.value(metricAllocCPUAllocated, app)
	must.Eq(t, float32(1200), v, must.Sprint("200 MHz and a core of 1000"))

	sidecar := append(app[:4:4], append([]metrics.Label{{Name: "task", Value: "sidecar"}}, node...)...)
	v, ok = rec.value(metricAllocMemoryAllocated, sidecar)
	must.True(t, ok)
	must.Eq(t, float32(structs.DefaultResources().MemoryMB<<20), v, must.Sprint("a task that asks for nothing gets the defaults"))

	// Without a process there is nothing measured to report.
	must.SliceEmpty(t, rec.withPrefix("client.allocs.cpu.user"))
	must.SliceEmpty(t, rec.withPrefix("client.allocs.memory.rss"))
	must.MapLen(t, 2, am.tasks)

	// The task stops: its gauges are not set again, its sample goes.
	a.TaskStates["app"].State = structs.TaskStateDead
	am.collect(rec, time.Now(), []*structs.Allocation{a})
	must.Eq(t, 1, rec.count(metricAllocMemoryAllocated, app))
	must.Eq(t, 2, rec.count(metricAllocMemoryAllocated, sidecar))
	must.MapLen(t, 1, am.tasks)
	am.collect(rec, time.Now(), nil)
	must.MapEmpty(t, am.tasks)
}

// TestAllocMetrics_ProcessGroup measures a real task: a process group of
// two sleeps, as raw_exec starts one in a session of its own.
func TestAllocMetrics_ProcessGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & exec sleep 61")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	must.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	task := []runningTask{{hasPID: true, pid: pid, pgid: pid}}
	node := nodeMetricLabels(testNode())
	am := newAllocMetrics(node, 1000, 2000, func(allocID, name string) (int, int, bool) {
		return pid, pid, allocID == "a1" && name == "app"
	})
	waitfor.True(t, "the group's second process", func() bool { return len(am.scanProcessGroups(task)[pid]) == 2 })

	a := runningAlloc("a1", map[string]string{"app": structs.TaskStateRunning})
	labels := taskMetricLabels(a, "app", node)
	rec := newGaugeRecorder()
	now := time.Now()
	am.collect(rec, now, []*structs.Allocation{a})

	rss, ok := rec.value(metricAllocMemoryRSS, labels)
	must.True(t, ok)
	must.Positive(t, rss)
	usage, _ := rec.value(metricAllocMemoryUsage, labels)
	must.Eq(t, rss, usage)
	must.MapLen(t, 2, am.tasks[taskKey{"a1", "app"}].pids, must.Sprint("both processes of the group"))
	// CPU use needs two samples.
	_, ok = rec.value(metricAllocCPUTotalPercent, labels)
	must.False(t, ok)

	am.collect(rec, now.Add(time.Second), []*structs.Allocation{a})
	for _, key := range [][]string{metricAllocCPUUser, metricAllocCPUSystem, metricAllocCPUTotalPercent, metricAllocCPUTotalTicks} {
		v, ok := rec.value(key, labels)
		must.True(t, ok, must.Sprintf("%v not set", key))
		// Sleeping processes: well under one core.
		must.True(t, v >= 0 && v < 100, must.Sprintf("%v = %v", key, v))
	}
}

// TestAllocMetrics_DriverUsage reports a task its driver measures (a
// container's cgroup) from the driver's figures, not from /proc: memory
// as reported, CPU as the difference of two reports.
func TestAllocMetrics_DriverUsage(t *testing.T) {
	node := nodeMetricLabels(testNode())
	am := newAllocMetrics(node, 1000, 2000, func(string, string) (int, int, bool) {
		t.Fatal("a task its driver measures is not looked up in /proc")
		return 0, 0, false
	})
	start := time.Unix(1700000000, 0)
	reports := []*drivers.TaskUsage{
		{Timestamp: start, MemoryRSS: 10 << 20, MemoryUsage: 12 << 20, CPUUser: time.Second, CPUSystem: time.Second},
		{Timestamp: start.Add(2 * time.Second), MemoryRSS: 11 << 20, MemoryUsage: 13 << 20, CPUUser: 2 * time.Second, CPUSystem: 1500 * time.Millisecond},
	}
	am.usage = func(allocID, name string) (*drivers.TaskUsage, bool) {
		u := reports[0]
		return u, allocID == "a1" && name == "app"
	}
	a := runningAlloc("a1", map[string]string{"app": structs.TaskStateRunning})
	labels := taskMetricLabels(a, "app", node)
	rec := newGaugeRecorder()
	am.collect(rec, time.Now(), []*structs.Allocation{a})
	v, ok := rec.value(metricAllocMemoryRSS, labels)
	must.True(t, ok)
	must.Eq(t, float32(10<<20), v)
	v, _ = rec.value(metricAllocMemoryUsage, labels)
	must.Eq(t, float32(12<<20), v)
	_, ok = rec.value(metricAllocCPUUser, labels)
	must.False(t, ok, must.Sprint("CPU use needs two reports"))

	reports = reports[1:]
	am.collect(rec, time.Now(), []*structs.Allocation{a})
	user, _ := rec.value(metricAllocCPUUser, labels)
	system, _ := rec.value(metricAllocCPUSystem, labels)
	total, _ := rec.value(metricAllocCPUTotalPercent, labels)
	ticks, _ := rec.value(metricAllocCPUTotalTicks, labels)
	must.Eq(t, float32(50), user, must.Sprint("1 s of user time over 2 s"))
	must.Eq(t, float32(25), system)
	must.Eq(t, float32(75), total)
	must.Eq(t, float32(1500), ticks, must.Sprint("75% of a 2000 MHz core"))
}
