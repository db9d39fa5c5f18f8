package client

import (
	"os"
	"slices"
	"time"

	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// The allocation metric names, under the agent's service prefix, as
// Nomad emits them per task with publish_allocation_metrics.
var (
	metricAllocMemoryRSS       = []string{"client", "allocs", "memory", "rss"}
	metricAllocMemoryUsage     = []string{"client", "allocs", "memory", "usage"}
	metricAllocMemoryAllocated = []string{"client", "allocs", "memory", "allocated"}
	metricAllocCPUTotalPercent = []string{"client", "allocs", "cpu", "total_percent"}
	metricAllocCPUUser         = []string{"client", "allocs", "cpu", "user"}
	metricAllocCPUSystem       = []string{"client", "allocs", "cpu", "system"}
	metricAllocCPUTotalTicks   = []string{"client", "allocs", "cpu", "total_ticks"}
	metricAllocCPUAllocated    = []string{"client", "allocs", "cpu", "allocated"}
)

// taskProcessFunc finds a running task's process and process group, as
// Client.taskProcess does.
type taskProcessFunc func(allocID, task string) (pid, pgid int, ok bool)

// taskUsageFunc asks a running task's driver what the task uses, when
// the driver measures that itself, as Client.taskUsageOf does.
type taskUsageFunc func(allocID, task string) (*drivers.TaskUsage, bool)

// allocMetrics collects the gauges of each running task: what it was
// given, and what the processes of its process group use. The gauges of
// a task that stopped running are no longer set, so its series end.
type allocMetrics struct {
	nodeLabels    []metrics.Label
	sharesPerCore int64
	// mhz converts CPU use into total_ticks; 0 when the node's clock rate
	// is not known, and total_ticks is then not reported.
	mhz     float64
	process taskProcessFunc
	// usage, when set, is asked first: a task its driver measures (a
	// container) is not read from /proc.
	usage taskUsageFunc

	// tasks are the samples of the previous collection, one per task then
	// running: CPU use is the difference of two samples.
	tasks map[taskKey]*taskSample

	// proc reads /proc for every collection (one at a time).
	proc     procReader
	pageSize uint64
}

type taskKey struct{ allocID, task string }

// taskSample is one task's state at one collection.
type taskSample struct {
	labels []metrics.Label
	at     time.Time
	// pids holds the CPU time of each of the task's processes; nil when
	// none could be read.
	pids map[int]pidTicks
	// driverCPU is the CPU time its driver reported, for a task the
	// driver measures.
	driverCPU *drivers.TaskUsage
}

// pidTicks is one process's CPU time, in clock ticks. start tells a
// process from a later one that reuses its PID.
type pidTicks struct {
	start, user, system uint64
}

func newAllocMetrics(nodeLabels []metrics.Label, perCore int64, mhz float64, process taskProcessFunc) *allocMetrics {
	return &allocMetrics{
		nodeLabels:    nodeLabels,
		sharesPerCore: perCore,
		mhz:           mhz,
		process:       process,
		tasks:         map[taskKey]*taskSample{},
		pageSize:      uint64(os.Getpagesize()),
	}
}

// runningTask is a task found running at this collection.
type runningTask struct {
	key       taskKey
	alloc     *structs.Allocation
	pid, pgid int
	hasPID    bool
	// usage is the driver's measure, for a task its driver measures.
	usage *drivers.TaskUsage
}

func (am *allocMetrics) collect(g gaugeSink, now time.Time, allocs []*structs.Allocation) {
	running := am.runningTasks(allocs)
	groups := am.scanProcessGroups(running)
	next := make(map[taskKey]*taskSample, len(running))
	for _, rt := range running {
		prev := am.tasks[rt.key]
		s := &taskSample{at: now}
		if prev != nil {
			s.labels = prev.labels
		} else {
			s.labels = taskMetricLabels(rt.alloc, rt.key.task, am.nodeLabels)
		}
		next[rt.key] = s
		am.emitAllocated(g, rt, s.labels)
		if rt.usage != nil {
			am.emitDriverUsage(g, rt.usage, prev, s)
			continue
		}
		if !rt.hasPID {
			continue
		}
		rss, pids := am.sampleProcesses(rt.pid, groups[rt.pgid])
		if pids == nil {
			continue
		}
		s.pids = pids
		g.SetGaugeWithLabels(metricAllocMemoryRSS, float32(rss), s.labels)
		// Without a memory cgroup, usage is the resident memory, as the
		// allocation stats endpoint reports it.
		g.SetGaugeWithLabels(metricAllocMemoryUsage, float32(rss), s.labels)
		if prev == nil {
			continue
		}
		user, system, ok := taskCPU(prev.pids, pids, now.Sub(prev.at))
		if !ok {
			continue
		}
		am.emitCPU(g, user, system, s.labels)
	}
	// Tasks no longer running drop out here, with their samples.
	am.tasks = next
}

// emitDriverUsage reports what a task's driver measured: memory as it
// says, CPU as the difference with its previous report.
func (am *allocMetrics) emitDriverUsage(g gaugeSink, u *drivers.TaskUsage, prev, s *taskSample) {
	s.driverCPU = u
	g.SetGaugeWithLabels(metricAllocMemoryRSS, float32(u.MemoryRSS), s.labels)
	g.SetGaugeWithLabels(metricAllocMemoryUsage, float32(u.MemoryUsage), s.labels)
	if prev == nil || prev.driverCPU == nil {
		return
	}
	p := prev.driverCPU
	elapsed := u.Timestamp.Sub(p.Timestamp).Seconds()
	if elapsed <= 0 {
		return
	}
	user := 100 * max(u.CPUUser-p.CPUUser, 0).Seconds() / elapsed
	system := 100 * max(u.CPUSystem-p.CPUSystem, 0).Seconds() / elapsed
	am.emitCPU(g, user, system, s.labels)
}

// emitCPU reports a task's CPU use, user and system in percent of one
// core, and their total; in MHz too when the node's speed is known.
func (am *allocMetrics) emitCPU(g gaugeSink, user, system float64, labels []metrics.Label) {
	total := user + system
	g.SetGaugeWithLabels(metricAllocCPUUser, float32(user), labels)
	g.SetGaugeWithLabels(metricAllocCPUSystem, float32(system), labels)
	g.SetGaugeWithLabels(metricAllocCPUTotalPercent, float32(total), labels)
	if am.mhz > 0 {
		g.SetGaugeWithLabels(metricAllocCPUTotalTicks, float32(total/100*am.mhz), labels)
	}
}

// runningTasks lists the running tasks of allocs, in allocation and task
// name order, with their processes.
func (am *allocMetrics) runningTasks(allocs []*structs.Allocation) []runningTask {
	var out []runningTask
	for _, a := range allocs {
		names := make([]string, 0, len(a.TaskStates))
		for name, ts := range a.TaskStates {
			if ts != nil && ts.State == structs.TaskStateRunning {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			rt := runningTask{key: taskKey{a.ID, name}, alloc: a}
			if am.usage != nil {
				if u, ok := am.usage(a.ID, name); ok {
					rt.usage = u
					out = append(out, rt)
					continue
				}
			}
			rt.pid, rt.pgid, rt.hasPID = am.process(a.ID, name)
			out = append(out, rt)
		}
	}
	return out
}

// emitAllocated reports what the task was given: memory in bytes, CPU in
// MHz.
func (am *allocMetrics) emitAllocated(g gaugeSink, rt runningTask, labels []metrics.Label) {
	r := taskResources(rt.alloc, rt.key.task)
	if r == nil {
		return
	}
	g.SetGaugeWithLabels(metricAllocMemoryAllocated, float32(int64(r.MemoryMB)<<20), labels)
	g.SetGaugeWithLabels(metricAllocCPUAllocated, float32(cpuShares(r, am.sharesPerCore)), labels)
}

// taskResources is what the scheduler gave a task: the allocation's
// record of it, else what the task asks for in the job (the defaults when
// it asks for nothing); nil when the allocation does not know the task.
func taskResources(a *structs.Allocation, task string) *structs.Resources {
	if r := a.TaskResources[task]; r != nil {
		return r
	}
	tg := a.LookupTaskGroup()
	if tg == nil {
		return nil
	}
	for _, t := range tg.Tasks {
		if t.Name != task {
			continue
		}
		if t.Resources == nil {
			return structs.DefaultResources()
		}
		return t.Resources
	}
	return nil
}

// taskMetricLabels are the labels of a task's series: the allocation's,
// the task's and the node's.
func taskMetricLabels(a *structs.Allocation, task string, nodeLabels []metrics.Label) []metrics.Label {
	// The job label is the job's name, as on Nomad's allocation metrics.
	job := a.JobID
	if a.Job != nil && a.Job.Name != "" {
		job = a.Job.Name
	}
	return withLabels([]metrics.Label{
		{Name: "alloc_id", Value: a.ID},
		{Name: "job", Value: job},
		{Name: "namespace", Value: a.Namespace},
		{Name: "task_group", Value: a.TaskGroup},
		{Name: "task", Value: task},
	}, nodeLabels...)
}

// pidStat is one process's /proc/<pid>/stat.
type pidStat struct {
	pid int
	st  procStat
}

// scanProcessGroups reads /proc once and returns the processes of the
// process groups of the tasks, by group. One scan serves every task:
// reading the stat of every process on the machine once per task would
// make the cost of an interval grow with tasks times processes.
func (am *allocMetrics) scanProcessGroups(tasks []runningTask) map[int][]pidStat {
	want := map[int]bool{}
	for _, rt := range tasks {
		if rt.hasPID && rt.pgid > 0 {
			want[rt.pgid] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	return am.proc.groups(want)
}

// sampleProcesses reads the resident memory of a task's processes, pid
// and the members of its process group, and returns it with each
// process's CPU time. pids is nil when no process could be read: the task
// ended meanwhile.
func (am *allocMetrics) sampleProcesses(pid int, group []pidStat) (rss uint64, pids map[int]pidTicks) {
	if !slices.ContainsFunc(group, func(p pidStat) bool { return p.pid == pid }) {
		// No group known, or the leader left it: the task's own process
		// counts still.
		if st, err := am.proc.stat(pid); err == nil {
			group = append(slices.Clip(group), pidStat{pid: pid, st: st})
		}
	}
	for _, p := range group {
		r, err := am.proc.rss(p.pid, am.pageSize)
		if err != nil {
			continue // it exited meanwhile
		}
		if pids == nil {
			pids = make(map[int]pidTicks, len(group))
		}
		rss += r
		pids[p.pid] = pidTicks{start: p.st.startTime, user: p.st.utime, system: p.st.stime}
	}
	return rss, pids
}

// taskCPU is a task's CPU use between two samples, in percent of one
// core: user and system time. A process that started since the previous
// sample counts with all its time; one that ended between the two
// samples counts for nothing in that interval. ok is false without a
// previous sample to compare with.
func taskCPU(prev, cur map[int]pidTicks, elapsed time.Duration) (user, system float64, ok bool) {
	if prev == nil || cur == nil || elapsed <= 0 {
		return 0, 0, false
	}
	var du, ds uint64
	for pid, c := range cur {
		p, had := prev[pid]
		if !had || p.start != c.start {
			p = pidTicks{}
		}
		du += c.user - min(p.user, c.user)
		ds += c.system - min(p.system, c.system)
	}
	secs := elapsed.Seconds()
	return 100 * float64(du) / clockTicks / secs, 100 * float64(ds) / clockTicks / secs, true
}
