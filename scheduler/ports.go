package scheduler

import (
	"fmt"
	"math/rand/v2"

	"github.com/drover-io/drover/structs"
)

// Port exhaustion, as placement metrics name it (Nomad's wording: its
// dimensions start "network: ").
const (
	dimensionNoNetwork      = "network: no networks available"
	dimensionDynamicPorts   = "network: dynamic port selection failed"
	dimensionPortCollisionF = "network: reserved port collision %s=%d"
)

// nodePorts counts the holders of each host port on one node.
type nodePorts map[int]int

func (np nodePorts) addAlloc(alloc *structs.Allocation, delta int) {
	for _, p := range alloc.HostPorts() {
		np[p.Value] += delta
	}
}

// portsInUse reports whether the allocations on the node hold a port, the
// plan included. used must have read the node first.
func (u *usageIndex) portsInUse(nodeID string) func(port int) bool {
	base, delta := u.basePorts[nodeID], u.deltaPorts[nodeID]
	return func(port int) bool { return base[port]+delta[port] > 0 }
}

// movePorts records that the plan takes (delta 1) or frees (delta -1) the
// ports of alloc.
func (u *usageIndex) movePorts(alloc *structs.Allocation, delta int) {
	if len(alloc.Networks) == 0 {
		return
	}
	np := u.deltaPorts[alloc.NodeID]
	if np == nil {
		np = nodePorts{}
		u.deltaPorts[alloc.NodeID] = np
	}
	np.addAlloc(alloc, delta)
}

// assignNetworks gives the group's network blocks host ports on node:
// each static port must be free and not reserved, each dynamic port is
// picked from the node's range among those that are. The result is the
// allocation's Networks; dimension names what ran out when there is none.
func assignNetworks(node *structs.Node, tg *structs.TaskGroup, inUse func(int) bool) (nets []*structs.NetworkResource, dimension string) {
	if len(tg.Networks) == 0 {
		return nil, ""
	}
	ip := node.HostIP()
	if ip == "" {
		return nil, dimensionNoNetwork
	}
	reserved := node.ReservedPorts()
	taken := func(port int) bool { return reserved[port] || inUse(port) }
	picked := map[int]bool{}
	for _, ask := range tg.Networks {
		n := ask.Copy()
		n.Mode = n.ModeOrDefault()
		n.IP = ip
		for _, p := range n.ReservedPorts {
			if taken(p.Value) || picked[p.Value] {
				return nil, fmt.Sprintf(dimensionPortCollisionF, p.Label, p.Value)
			}
			picked[p.Value] = true
		}
		nets = append(nets, n)
	}
	lo, hi := node.DynamicPortRange()
	for _, n := range nets {
		for i := range n.DynamicPorts {
			port, ok := pickDynamicPort(lo, hi, func(p int) bool { return taken(p) || picked[p] })
			if !ok {
				return nil, dimensionDynamicPorts
			}
			picked[port] = true
			n.DynamicPorts[i].Value = port
		}
	}
	return nets, ""
}

// pickDynamicPort picks a free port of [lo, hi]: a few random tries, as
// the range is mostly free, then a walk of the whole range from a random
// start, so that a free port is found whenever there is one.
func pickDynamicPort(lo, hi int, taken func(int) bool) (int, bool) {
	if hi < lo {
		return 0, false
	}
	size := hi - lo + 1
	for range 20 {
		if p := lo + rand.IntN(size); !taken(p) {
			return p, true
		}
	}
	start := rand.IntN(size)
	for i := range size {
		if p := lo + (start+i)%size; !taken(p) {
			return p, true
		}
	}
	return 0, false
}

// assignPorts assigns the group's ports on node for the placer, or records
// on m which network dimension the node lacks.
func (ctx *planContext) assignPorts(p *groupPlacer, node *structs.Node, m *structs.AllocMetric) bool {
	tg := p.checker.tg
	if len(tg.Networks) == 0 {
		return true
	}
	nets, dimension := assignNetworks(node, tg, ctx.usage.portsInUse(node.ID))
	if dimension != "" {
		exhaustNode(m, node, dimension)
		return false
	}
	if p.networks == nil {
		p.networks = map[string][]*structs.NetworkResource{}
	}
	p.networks[node.ID] = nets
	return true
}
