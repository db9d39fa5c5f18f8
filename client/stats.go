package client

import (
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

// taskProcess asks the task's driver for its process and process group.
func (c *Client) taskProcess(allocID, task string) (pid, pgid int, ok bool) {
	local, _, err := c.stateDB.GetTaskRunnerState(allocID, task)
	if err != nil || local == nil || local.TaskHandle == nil || local.TaskHandle.Config == nil {
		return 0, 0, false
	}
	h := local.TaskHandle
	drv, found := c.config.Drivers.Lookup(h.Driver)
	if !found {
		return 0, 0, false
	}
	st, err := drv.InspectTask(h.Config.ID)
	if err != nil || st.State != drivers.TaskStateRunning {
		return 0, 0, false
	}
	pid, err = strconv.Atoi(st.DriverAttributes["pid"])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	pgid, _ = strconv.Atoi(st.DriverAttributes["pgid"])
	return pid, pgid, true
}

// addUsage adds u to sum, and what u measured to what sum measured.
func addUsage(sum, u *ResourceUsage) {
	sum.MemoryStats.RSS += u.MemoryStats.RSS
	sum.MemoryStats.Usage += u.MemoryStats.Usage
	sum.MemoryStats.Measured = mergeMeasured(sum.MemoryStats.Measured, u.MemoryStats.Measured)
	sum.CpuStats.SystemMode += u.CpuStats.SystemMode
	sum.CpuStats.UserMode += u.CpuStats.UserMode
	sum.CpuStats.Percent += u.CpuStats.Percent
	sum.CpuStats.TotalTicks += u.CpuStats.TotalTicks
	sum.CpuStats.Measured = mergeMeasured(sum.CpuStats.Measured, u.CpuStats.Measured)
}

func mergeMeasured(a, b []string) []string {
	if len(a) == 0 {
		return append([]string{}, b...)
	}
	return a
}
