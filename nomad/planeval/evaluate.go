package planeval

import (
	"fmt"
	"maps"
	"slices"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// View is the state a plan is checked against: a snapshot of the
// store plus the allocations of the plan still being committed, which the
// snapshot may not hold yet.
type View struct {
	Snap *state.StateSnapshot

	// Inflight maps a node ID to allocations written by the plan in
	// flight; they replace the snapshot's of the same ID.
	Inflight map[string][]*structs.Allocation
}

// nodeAllocs returns the allocations on a node as they will be once the
// plan in flight is committed, by ID.
func (v *View) nodeAllocs(nodeID string) (map[string]*structs.Allocation, error) {
	stored, err := v.Snap.AllocsByNode(nil, nodeID)
	if err != nil {
		return nil, err
	}
	allocs := make(map[string]*structs.Allocation, len(stored)+len(v.Inflight[nodeID]))
	for _, a := range stored {
		allocs[a.ID] = a
	}
	for _, a := range v.Inflight[nodeID] {
		allocs[a.ID] = a
	}
	return allocs, nil
}

// nodeVerdict is what the check of one node's part of a plan decided.
type nodeVerdict struct {
	ok     bool
	reason string // why not
}

// Evaluate checks every node's part of a plan against the view and
// returns what may be committed: every node whose changes still fit, or
// nothing when the plan is all-at-once and a node does not. rejected maps
// each refused node to the reason.
func Evaluate(v *View, plan *structs.Plan) (result *structs.PlanResult, rejected map[string]string, err error) {
	result = &structs.PlanResult{
		NodeUpdate:     make(map[string][]*structs.Allocation),
		NodeAllocation: make(map[string][]*structs.Allocation),
	}
	nodeIDs := slices.Sorted(maps.Keys(plan.NodeAllocation))
	for id := range plan.NodeUpdate {
		if _, ok := plan.NodeAllocation[id]; !ok {
			nodeIDs = append(nodeIDs, id)
		}
	}
	for _, id := range nodeIDs {
		verdict, err := evaluateNodePlan(v, plan, id)
		if err != nil {
			return nil, nil, fmt.Errorf("check plan of evaluation %s on node %s: %w", plan.EvalID, id, err)
		}
		if !verdict.ok {
			if rejected == nil {
				rejected = make(map[string]string)
			}
			rejected[id] = verdict.reason
			if plan.AllAtOnce {
				result.NodeUpdate = map[string][]*structs.Allocation{}
				result.NodeAllocation = map[string][]*structs.Allocation{}
				return result, rejected, nil
			}
			continue
		}
		if u := plan.NodeUpdate[id]; len(u) > 0 {
			result.NodeUpdate[id] = u
		}
		if a := plan.NodeAllocation[id]; len(a) > 0 {
			result.NodeAllocation[id] = a
		}
	}
	return result, rejected, nil
}

// evaluateNodePlan checks one node's part of a plan: stops always pass;
// allocations to run need a node that is ready, and new ones a node that
// is eligible and not draining; and everything that will run on the node,
// including what other plans committed since the scheduler looked, must
// fit its capacity.
func evaluateNodePlan(v *View, plan *structs.Plan, nodeID string) (nodeVerdict, error) {
	placing := plan.NodeAllocation[nodeID]
	if len(placing) == 0 {
		return nodeVerdict{ok: true}, nil
	}
	node, err := v.Snap.NodeByID(nil, nodeID)
	if err != nil {
		return nodeVerdict{}, err
	}
	if node == nil {
		return nodeVerdict{reason: "node does not exist"}, nil
	}
	current, err := v.nodeAllocs(nodeID)
	if err != nil {
		return nodeVerdict{}, err
	}
	live := make(map[string]*structs.Allocation, len(current)+len(placing))
	for id, a := range current {
		if !a.TerminalStatus() {
			live[id] = a
		}
	}
	for _, a := range plan.NodeUpdate[nodeID] {
		delete(live, a.ID)
	}
	running, placesNew := false, false
	for _, a := range placing {
		if a.TerminalStatus() {
			delete(live, a.ID)
			continue
		}
		running = true
		if _, ok := live[a.ID]; !ok {
			placesNew = true
		}
		live[a.ID] = a
	}
	if !running {
		return nodeVerdict{ok: true}, nil
	}
	switch {
	case node.Status != structs.NodeStatusReady:
		return nodeVerdict{reason: fmt.Sprintf("node is %s", node.Status)}, nil
	case placesNew && node.Drain:
		return nodeVerdict{reason: "node is draining"}, nil
	case placesNew && node.SchedulingEligibility != structs.NodeSchedulingEligible:
		return nodeVerdict{reason: "node is not eligible for scheduling"}, nil
	}
	var used planResources
	for _, a := range live {
		used.add(allocAsk(a, plan.Job))
	}
	if dim, ok := capacityOfNode(node).fits(used); !ok {
		return nodeVerdict{reason: fmt.Sprintf("node's %s is exhausted", dim)}, nil
	}
	if reason := portCollision(node, live); reason != "" {
		return nodeVerdict{reason: reason}, nil
	}
	return nodeVerdict{ok: true}, nil
}

// planResources is an amount of each resource dimension.
type planResources struct {
	cpu, cores, memoryMB, diskMB int64
}

func (r *planResources) add(o planResources) {
	r.cpu += o.cpu
	r.cores += o.cores
	r.memoryMB += o.memoryMB
	r.diskMB += o.diskMB
}

func toPlanResources(r *structs.Resources) planResources {
	if r == nil {
		return planResources{}
	}
	return planResources{cpu: int64(r.CPU), cores: int64(r.Cores), memoryMB: int64(r.MemoryMB), diskMB: int64(r.DiskMB)}
}

// allocAsk is what an allocation holds on its node: its recorded total,
// else the sum of its tasks', else what its group asks for (a task without
// resources gets the defaults). planJob stands in for an allocation
// without a job.
func allocAsk(a *structs.Allocation, planJob *structs.Job) planResources {
	if a.Resources != nil {
		return toPlanResources(a.Resources)
	}
	var sum planResources
	if len(a.TaskResources) > 0 {
		for _, r := range a.TaskResources {
			sum.add(toPlanResources(r))
		}
		return sum
	}
	job := a.Job
	if job == nil {
		job = planJob
	}
	if job == nil {
		return sum
	}
	tg := job.LookupTaskGroup(a.TaskGroup)
	if tg == nil {
		return sum
	}
	for _, task := range tg.Tasks {
		r := task.Resources
		if r == nil {
			r = structs.DefaultResources()
		}
		sum.add(toPlanResources(r))
	}
	return sum
}

// planCapacity is what a node offers allocations: its resources less what
// it reserves. Reserved cores count in CPU shares at the node's rate.
type planCapacity struct {
	cpu, cores, memoryMB, diskMB int64
	sharesPerCore                int64
}

func capacityOfNode(node *structs.Node) planCapacity {
	var c planCapacity
	if nr := node.NodeResources; nr != nil {
		c.cpu = nr.Cpu.CpuShares
		c.cores = int64(nr.Cpu.TotalCpuCores)
		c.memoryMB = nr.Memory.MemoryMB
		c.diskMB = nr.Disk.DiskMB
		if c.cores > 0 {
			c.sharesPerCore = c.cpu / c.cores
		}
	}
	if rr := node.ReservedResources; rr != nil {
		c.cpu -= int64(rr.Cpu.CpuShares)
		c.memoryMB -= int64(rr.Memory.MemoryMB)
		c.diskMB -= int64(rr.Disk.DiskMB)
	}
	return c
}

// fits reports whether used fits the capacity, and otherwise the first
// exhausted dimension. Cores and disk are checked only when asked for:
// nodes may not report them.
func (c planCapacity) fits(used planResources) (dimension string, ok bool) {
	switch {
	case used.cpu+used.cores*c.sharesPerCore > c.cpu:
		return "cpu", false
	case used.cores > 0 && used.cores > c.cores:
		return "cores", false
	case used.memoryMB > c.memoryMB:
		return "memory", false
	case used.diskMB > 0 && used.diskMB > c.diskMB:
		return "disk", false
	}
	return "", true
}
