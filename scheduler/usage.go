package scheduler

import (
	"fmt"

	"github.com/drover-io/drover/structs"
)

// usageIndex tracks what the allocations on each node hold: what the state
// says, read once per node when the node is first considered, plus what
// the plan being built adds and frees.
type usageIndex struct {
	state State
	base  map[string]resources
	delta map[string]resources
	// basePorts and deltaPorts are the same for host ports (ports.go).
	basePorts  map[string]nodePorts
	deltaPorts map[string]nodePorts
}

func newUsageIndex(state State) *usageIndex {
	return &usageIndex{
		state: state,
		base:  make(map[string]resources),
		delta: make(map[string]resources),

		basePorts:  make(map[string]nodePorts),
		deltaPorts: make(map[string]nodePorts),
	}
}

// used returns what the allocations on the node hold, the plan included.
func (u *usageIndex) used(nodeID string) (resources, error) {
	base, ok := u.base[nodeID]
	if !ok {
		allocs, err := u.state.AllocsByNode(nil, nodeID)
		if err != nil {
			return resources{}, fmt.Errorf("read allocations of node %q: %w", nodeID, err)
		}
		ports := nodePorts{}
		for _, alloc := range allocs {
			if holdsResources(alloc) {
				base.add(allocResources(alloc))
				ports.addAlloc(alloc, 1)
			}
		}
		u.base[nodeID] = base
		u.basePorts[nodeID] = ports
	}
	d := u.delta[nodeID]
	base.add(d)
	return base, nil
}

// place records that the plan puts r on the node.
func (u *usageIndex) place(nodeID string, r resources) {
	d := u.delta[nodeID]
	d.add(r)
	u.delta[nodeID] = d
}

// free records that the plan stops an allocation that held r.
func (u *usageIndex) free(nodeID string, r resources) {
	d := u.delta[nodeID]
	d.sub(r)
	u.delta[nodeID] = d
}

// freeAlloc records that the plan stops alloc, which frees what it held.
func (u *usageIndex) freeAlloc(alloc *structs.Allocation) {
	if holdsResources(alloc) {
		u.free(alloc.NodeID, allocResources(alloc))
		u.movePorts(alloc, -1)
	}
}

// unfreeAlloc undoes freeAlloc.
func (u *usageIndex) unfreeAlloc(alloc *structs.Allocation) {
	if holdsResources(alloc) {
		u.place(alloc.NodeID, allocResources(alloc))
		u.movePorts(alloc, 1)
	}
}
