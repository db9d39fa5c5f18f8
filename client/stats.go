package client

import (
	"context"
	"strconv"
	"time"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// AllocResourceUsage is what an allocation's tasks use, in the shape of
// Nomad's /v1/client/allocation/:id/stats.
type AllocResourceUsage struct {
	ResourceUsage *ResourceUsage
	Tasks         map[string]*TaskResourceUsage
	Timestamp     int64
}

// TaskResourceUsage is what one task's processes use, in total and per
// process ID.
type TaskResourceUsage struct {
	ResourceUsage *ResourceUsage
	Timestamp     int64
	Pids          map[string]*ResourceUsage
}

// ResourceUsage is memory and CPU use.
type ResourceUsage struct {
	MemoryStats *MemoryStats
	CpuStats    *CpuStats
}

// MemoryStats is memory use in bytes. Measured names the fields that were
// measured: an empty list means the figures are not known, not zero.
type MemoryStats struct {
	RSS            uint64
	Cache          uint64
	Swap           uint64
	Usage          uint64
	MaxUsage       uint64
	KernelUsage    uint64
	KernelMaxUsage uint64
	Measured       []string
}

// CpuStats is CPU use: percentages of one core averaged over the
// processes' lifetime, and TotalTicks in MHz. Measured is as for
// MemoryStats.
type CpuStats struct {
	SystemMode       float64
	UserMode         float64
	TotalTicks       float64
	ThrottledPeriods uint64
	ThrottledTime    uint64
	Percent          float64
	Measured         []string
}

// What the stats measure, under Nomad's names.
var (
	measuredMemory = []string{"RSS"}
	measuredCPU    = []string{"System Mode", "User Mode", "Percent"}
)

func emptyUsage() *ResourceUsage {
	return &ResourceUsage{
		MemoryStats: &MemoryStats{Measured: []string{}},
		CpuStats:    &CpuStats{Measured: []string{}},
	}
}

// AllocStats reports the resource use of an allocation's running tasks,
// read from the processes of each task's process group. A task that does
// not run, or whose driver does not tell its process, reports zeros with
// nothing in Measured.
func (c *Client) AllocStats(allocID string) (*AllocResourceUsage, error) {
	ar, err := c.AllocRunner(allocID)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	out := &AllocResourceUsage{
		ResourceUsage: emptyUsage(),
		Tasks:         map[string]*TaskResourceUsage{},
		Timestamp:     now,
	}
	mhz, _ := strconv.ParseFloat(c.node.Attributes["cpu.frequency"], 64)
	for name, ts := range ar.Alloc().TaskStates {
		tu := &TaskResourceUsage{ResourceUsage: emptyUsage(), Timestamp: now, Pids: map[string]*ResourceUsage{}}
		out.Tasks[name] = tu
		if ts.State != structs.TaskStateRunning {
			continue
		}
		if u, started, ok := c.taskUsage(allocID, name); ok {
			tu.ResourceUsage = driverUsage(u, started, mhz)
			addUsage(out.ResourceUsage, tu.ResourceUsage)
			continue
		}
		pid, pgid, ok := c.taskProcess(allocID, name)
		if !ok {
			continue
		}
		for _, p := range groupProcesses(pid, pgid) {
			u, err := readProcessUsage(p, mhz)
			if err != nil {
				continue // it exited meanwhile
			}
			tu.Pids[strconv.Itoa(p)] = u
			addUsage(tu.ResourceUsage, u)
		}
		addUsage(out.ResourceUsage, tu.ResourceUsage)
	}
	return out, nil
}

// runningTask returns the driver and the status of the task's run in
// progress, if it runs.
func (c *Client) runningTask(allocID, task string) (drivers.Driver, *drivers.TaskStatus, bool) {
	local, _, err := c.stateDB.GetTaskRunnerState(allocID, task)
	if err != nil || local == nil || local.TaskHandle == nil || local.TaskHandle.Config == nil {
		return nil, nil, false
	}
	h := local.TaskHandle
	drv, found := c.config.Drivers.Lookup(h.Driver)
	if !found {
		return nil, nil, false
	}
	st, err := drv.InspectTask(h.Config.ID)
	if err != nil || st.State != drivers.TaskStateRunning {
		return nil, nil, false
	}
	return drv, st, true
}

// taskUsageTimeout bounds a driver's answer about a task's usage: an
// engine on a loaded machine can take seconds.
const taskUsageTimeout = 5 * time.Second

// taskUsage asks the task's driver what the task uses, when the driver
// measures that itself (a container's cgroup), and when the task started.
func (c *Client) taskUsage(allocID, task string) (*drivers.TaskUsage, time.Time, bool) {
	drv, st, ok := c.runningTask(allocID, task)
	if !ok {
		return nil, time.Time{}, false
	}
	sr, ok := drv.(drivers.StatsReporter)
	if !ok {
		return nil, time.Time{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), taskUsageTimeout)
	defer cancel()
	u, err := sr.TaskStats(ctx, st.ID)
	if err != nil {
		return nil, time.Time{}, false
	}
	return u, st.StartedAt, true
}

// taskUsageOf is taskUsage without the start time, for the metrics.
func (c *Client) taskUsageOf(allocID, task string) (*drivers.TaskUsage, bool) {
	u, _, ok := c.taskUsage(allocID, task)
	return u, ok
}

// What a driver that measures its tasks reports, under Nomad's names.
var (
	measuredDriverMemory = []string{"RSS", "Cache", "Swap", "Usage", "Max Usage"}
	measuredDriverCPU    = []string{"System Mode", "User Mode", "Throttled Periods", "Throttled Time", "Percent"}
)

// driverUsage is a driver's measure of a task as the stats endpoint
// reports it: CPU use averaged over the task's life, as for processes.
func driverUsage(u *drivers.TaskUsage, started time.Time, mhz float64) *ResourceUsage {
	r := &ResourceUsage{
		MemoryStats: &MemoryStats{
			RSS: u.MemoryRSS, Cache: u.MemoryCache, Swap: u.MemorySwap,
			Usage: u.MemoryUsage, MaxUsage: u.MemoryMaxUsage,
			Measured: measuredDriverMemory,
		},
		CpuStats: &CpuStats{
			ThrottledPeriods: u.ThrottledPeriods,
			ThrottledTime:    uint64(u.ThrottledTime),
			Measured:         measuredDriverCPU,
		},
	}
	if elapsed := u.Timestamp.Sub(started).Seconds(); !started.IsZero() && elapsed > 0 {
		r.CpuStats.UserMode = 100 * u.CPUUser.Seconds() / elapsed
		r.CpuStats.SystemMode = 100 * u.CPUSystem.Seconds() / elapsed
		r.CpuStats.Percent = r.CpuStats.UserMode + r.CpuStats.SystemMode
		r.CpuStats.TotalTicks = r.CpuStats.Percent / 100 * mhz
	}
	return r
}

// taskProcess asks the task's driver for its process and process group.
func (c *Client) taskProcess(allocID, task string) (pid, pgid int, ok bool) {
	_, st, running := c.runningTask(allocID, task)
	if !running {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(st.DriverAttributes["pid"])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	pgid, _ = strconv.Atoi(st.DriverAttributes["pgid"])
	return pid, pgid, true
}

// addUsage adds u to sum, and what u measured to what sum measured.
func addUsage(sum, u *ResourceUsage) {
	sum.MemoryStats.RSS += u.MemoryStats.RSS
	sum.MemoryStats.Cache += u.MemoryStats.Cache
	sum.MemoryStats.Swap += u.MemoryStats.Swap
	sum.MemoryStats.Usage += u.MemoryStats.Usage
	sum.MemoryStats.MaxUsage += u.MemoryStats.MaxUsage
	sum.MemoryStats.Measured = mergeMeasured(sum.MemoryStats.Measured, u.MemoryStats.Measured)
	sum.CpuStats.SystemMode += u.CpuStats.SystemMode
	sum.CpuStats.UserMode += u.CpuStats.UserMode
	sum.CpuStats.Percent += u.CpuStats.Percent
	sum.CpuStats.TotalTicks += u.CpuStats.TotalTicks
	sum.CpuStats.ThrottledPeriods += u.CpuStats.ThrottledPeriods
	sum.CpuStats.ThrottledTime += u.CpuStats.ThrottledTime
	sum.CpuStats.Measured = mergeMeasured(sum.CpuStats.Measured, u.CpuStats.Measured)
}

func mergeMeasured(a, b []string) []string {
	if len(a) == 0 {
		return append([]string{}, b...)
	}
	return a
}
