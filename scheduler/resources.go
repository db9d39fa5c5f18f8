package scheduler

import (
	"math"

	"github.com/drover-io/drover/structs"
)

// Resource dimensions, as placement metrics name them.
const (
	dimensionCPU    = "cpu"
	dimensionCores  = "cores"
	dimensionMemory = "memory"
	dimensionDisk   = "disk"
)

// resources is an amount of each dimension. Reserved cores are kept apart
// from CPU shares: what a core is worth in shares depends on the node.
type resources struct {
	cpu, cores, memoryMB, diskMB int64
}

func (r *resources) add(o resources) {
	r.cpu += o.cpu
	r.cores += o.cores
	r.memoryMB += o.memoryMB
	r.diskMB += o.diskMB
}

func (r *resources) sub(o resources) {
	r.cpu -= o.cpu
	r.cores -= o.cores
	r.memoryMB -= o.memoryMB
	r.diskMB -= o.diskMB
}

func fromStructs(r *structs.Resources) resources {
	if r == nil {
		return resources{}
	}
	return resources{
		cpu:      int64(r.CPU),
		cores:    int64(r.Cores),
		memoryMB: int64(r.MemoryMB),
		diskMB:   int64(r.DiskMB),
	}
}

// groupAsk sums what the tasks of a group ask for, in the shapes an
// allocation records it.
func groupAsk(tg *structs.TaskGroup) (total *structs.Resources, perTask map[string]*structs.Resources) {
	total = &structs.Resources{}
	perTask = make(map[string]*structs.Resources, len(tg.Tasks))
	for _, task := range tg.Tasks {
		r := task.Resources
		if r == nil {
			r = structs.DefaultResources()
		}
		c := *r
		perTask[task.Name] = &c
		total.Add(r)
	}
	if tg.EphemeralDisk != nil {
		// The tasks share the group's disk: it is the allocation's, not
		// any one task's.
		total.DiskMB += tg.EphemeralDisk.SizeMB
	}
	return total, perTask
}

// allocResources is what an allocation holds on its node.
func allocResources(alloc *structs.Allocation) resources {
	if alloc.Resources != nil {
		return fromStructs(alloc.Resources)
	}
	var sum resources
	if len(alloc.TaskResources) > 0 {
		for _, r := range alloc.TaskResources {
			sum.add(fromStructs(r))
		}
		return sum
	}
	if tg := alloc.LookupTaskGroup(); tg != nil {
		total, _ := groupAsk(tg)
		return fromStructs(total)
	}
	return sum
}

// holdsResources reports whether an allocation counts against its node's
// capacity: it does until it is meant to stop or has stopped.
func holdsResources(alloc *structs.Allocation) bool {
	return !alloc.TerminalStatus()
}

// nodeCapacity is what a node offers allocations: its resources less what
// it reserves.
type nodeCapacity struct {
	cpu, memoryMB, diskMB int64
	cores                 int64
	sharesPerCore         int64
}

func capacityOf(node *structs.Node) nodeCapacity {
	var c nodeCapacity
	if nr := node.NodeResources; nr != nil {
		c.cpu = nr.Cpu.CpuShares
		c.memoryMB = nr.Memory.MemoryMB
		c.diskMB = nr.Disk.DiskMB
		c.cores = int64(nr.Cpu.TotalCpuCores)
	}
	if rr := node.ReservedResources; rr != nil {
		c.cpu -= int64(rr.Cpu.CpuShares)
		c.memoryMB -= int64(rr.Memory.MemoryMB)
		c.diskMB -= int64(rr.Disk.DiskMB)
	}
	// A core is worth an equal share of what the node offers, so that
	// reserving every core takes all of its CPU.
	if c.cores > 0 && c.cpu > 0 {
		c.sharesPerCore = c.cpu / c.cores
	}
	return c
}

// cpuOf is the CPU shares r takes on a node of capacity c.
func (c nodeCapacity) cpuOf(r resources) int64 {
	return r.cpu + r.cores*c.sharesPerCore
}

// fit reports whether ask fits beside used, and otherwise the first
// dimension that is exhausted.
func (c nodeCapacity) fit(used, ask resources) (ok bool, dimension string) {
	switch {
	case c.cpuOf(used)+c.cpuOf(ask) > c.cpu:
		return false, dimensionCPU
	case ask.cores > 0 && used.cores+ask.cores > c.cores:
		return false, dimensionCores
	case used.memoryMB+ask.memoryMB > c.memoryMB:
		return false, dimensionMemory
	case ask.diskMB > 0 && used.diskMB+ask.diskMB > c.diskMB:
		return false, dimensionDisk
	}
	return true, ""
}

// binPackScore rates how tightly placing ask beside used packs the node,
// from 0 (it stays empty) to 1 (CPU and memory both full). Free capacity
// is weighed exponentially, so that filling the fuller of two nodes always
// wins over spreading.
func (c nodeCapacity) binPackScore(used, ask resources) float64 {
	freeCPU := freeFraction(c.cpuOf(used)+c.cpuOf(ask), c.cpu)
	freeMem := freeFraction(used.memoryMB+ask.memoryMB, c.memoryMB)
	const most = 20 // both dimensions free: 10^1 + 10^1
	const span = 18 // from both free (20-20) to both full (20-2)
	return (most - math.Pow(10, freeCPU) - math.Pow(10, freeMem)) / span
}

func freeFraction(used, capacity int64) float64 {
	if capacity <= 0 {
		return 0
	}
	free := 1 - float64(used)/float64(capacity)
	return min(max(free, 0), 1)
}
