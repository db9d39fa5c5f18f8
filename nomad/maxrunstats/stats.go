package maxrunstats

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// The server's max_run_duration metrics, under the agent's service prefix
// (nomad.nomad.max_run_duration.*): a dashboard reads them from any one
// server rather than from every client.
var (
	MetricRunning      = []string{"nomad", "max_run_duration", "running"}
	MetricExceeded     = []string{"nomad", "max_run_duration", "exceeded"}
	MetricTaskExceeded = []string{"nomad", "max_run_duration", "task_exceeded"}
)

// maxRunStatsInterval is how often a server counts the allocations with a
// deadline that run.
const maxRunStatsInterval = time.Second

// Stats is a server's view of max_run_duration across the cluster,
// from its own state: every server has it, the same, since every server
// applies the same log.
//
//   - running: a gauge per namespace, job and group, the allocations a
//     deadline applies to (structs.Allocation.MaxRun has one) whose client
//     has not finished them;
//   - exceeded: a counter per namespace, job and group, the allocations a
//     deadline stopped, as their clients reported it;
//   - task_exceeded: the same per task, for the tasks their own
//     max_run_duration killed.
//
// The counters count what clients reported since this server started (by
// the report's ModifyTime), so that neither replaying the log after a
// restart nor catching up with the leader counts a timeout twice.
type Stats struct {
	since int64
	// sink receives the series; unset means go-metrics' global, looked
	// up at each emission.
	sink atomic.Pointer[metrics.Metrics]

	mu sync.Mutex
	// running are the gauge series set at the last count, so that one
	// whose allocations all ended is set to 0 once, not left stale.
	running map[maxRunKey]bool
}

// maxRunKey is a series of the server's view: a group of a job, and a task
// of it for task_exceeded.
type maxRunKey struct {
	namespace, job, group, task string
}

func New(since time.Time, sink *metrics.Metrics) *Stats {
	m := &Stats{since: since.UnixNano(), running: map[maxRunKey]bool{}}
	m.sink.Store(sink)
	return m
}

// SetSink makes sink receive the series from now on.
func (m *Stats) SetSink(sink *metrics.Metrics) { m.sink.Store(sink) }

func (m *Stats) target() *metrics.Metrics {
	if sink := m.sink.Load(); sink != nil {
		return sink
	}
	return metrics.Default()
}

// keyOf is the series of alloc's group, and of its task unless empty. The
// job is named by its name, as on the clients' series.
func keyOf(alloc *structs.Allocation, task string) maxRunKey {
	job := alloc.JobID
	if alloc.Job != nil && alloc.Job.Name != "" {
		job = alloc.Job.Name
	}
	return maxRunKey{namespace: alloc.Namespace, job: job, group: alloc.TaskGroup, task: task}
}

func (k maxRunKey) labels() []metrics.Label {
	labels := []metrics.Label{
		{Name: "namespace", Value: k.namespace},
		{Name: "job", Value: k.job},
		{Name: "task_group", Value: k.group},
	}
	if k.task != "" {
		labels = append(labels, metrics.Label{Name: "task", Value: k.task})
	}
	return labels
}

// Observe counts the timeouts an applied entry recorded: allocations that
// changed to stopped by their deadline, and tasks that changed to killed
// by their own limit, reported since the server started.
func (m *Stats) Observe(changes memdb.Changes) {
	sink := m.target()
	for _, c := range changes {
		if c.Table != state.TableAllocs || c.After == nil {
			continue
		}
		after := c.After.(*structs.Allocation)
		if after.ModifyTime < m.since {
			continue
		}
		var before *structs.Allocation
		if c.Before != nil {
			before = c.Before.(*structs.Allocation)
		}
		if after.MaxRun().Exceeded && !before.MaxRun().Exceeded {
			sink.IncrCounterWithLabels(MetricExceeded, 1, keyOf(after, "").labels())
		}
		for name, ts := range after.TaskStates {
			if ts != nil && ts.MaxRunExceeded && !taskExceeded(before, name) {
				sink.IncrCounterWithLabels(MetricTaskExceeded, 1, keyOf(after, name).labels())
			}
		}
	}
}

// taskExceeded reports whether alloc, nil or not, records that its task's
// own limit killed it.
func taskExceeded(alloc *structs.Allocation, task string) bool {
	if alloc == nil {
		return false
	}
	ts := alloc.TaskStates[task]
	return ts != nil && ts.MaxRunExceeded
}

// count sets the running gauges from allocs, the state's allocations, and
// keeps each counter series of a group or task that a budget applies to
// in existence at its total (adding 0): Prometheus's increase() sees the
// first timeout of a job only in a series it has seen before.
func (m *Stats) count(allocs []*structs.Allocation) {
	running := map[maxRunKey]int{}
	for _, a := range allocs {
		if a.ClientTerminalStatus() || a.DesiredStatus != structs.AllocDesiredStatusRun {
			continue
		}
		m.touchCounters(a)
		if a.MaxRun().HasDeadline() {
			running[keyOf(a, "")]++
		}
	}
	sink := m.target()
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.running {
		if _, ok := running[k]; !ok {
			sink.SetGaugeWithLabels(MetricRunning, 0, k.labels())
			delete(m.running, k)
		}
	}
	for k, n := range running {
		sink.SetGaugeWithLabels(MetricRunning, float32(n), k.labels())
		m.running[k] = true
	}
}

// touchCounters adds 0 to the counters that may count for the running
// allocation a.
func (m *Stats) touchCounters(a *structs.Allocation) {
	tg := a.LookupTaskGroup()
	if tg == nil {
		return
	}
	sink := m.target()
	if a.MaxRun().Budget > 0 {
		sink.IncrCounterWithLabels(MetricExceeded, 0, keyOf(a, "").labels())
	}
	for _, t := range tg.Tasks {
		if a.TaskMaxRun(t.Name).Budget > 0 {
			sink.IncrCounterWithLabels(MetricTaskExceeded, 0, keyOf(a, t.Name).labels())
		}
	}
}

// Run counts the running allocations with a deadline in store's state
// every maxRunStatsInterval until ctx ends.
func (m *Stats) Run(ctx context.Context, logger hclog.Logger, store func() *state.StateStore) {
	ticker := time.NewTicker(maxRunStatsInterval)
	defer ticker.Stop()
	for tick := 0; ; tick++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		allocs, err := store().Allocs(nil)
		if err != nil {
			logger.Warn("count allocations for max_run_duration metrics", "error", err)
			continue
		}
		m.count(allocs)
		if tick%runTimesEvery == 0 {
			m.runTimes(allocs)
		}
	}
}
