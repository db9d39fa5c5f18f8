package structs

import (
	"fmt"
	"strconv"
	"strings"
)

// ParsePortSpec reads a list of ports and port ranges such as
// "22,80,8000-8100" (Nomad's reserved_ports) into the set of ports it
// names. Spaces around items are allowed; an empty spec names none.
func ParsePortSpec(spec string) (map[int]bool, error) {
	out := map[int]bool{}
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		lo, hi, isRange := strings.Cut(item, "-")
		first, err := parsePort(lo)
		if err != nil {
			return nil, fmt.Errorf("port list %q: %w", spec, err)
		}
		last := first
		if isRange {
			if last, err = parsePort(hi); err != nil {
				return nil, fmt.Errorf("port list %q: %w", spec, err)
			}
			if last < first {
				return nil, fmt.Errorf("port list %q: range %q ends before it starts", spec, item)
			}
		}
		for p := first; p <= last; p++ {
			out[p] = true
		}
	}
	return out, nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || p < 1 || p > MaxPort {
		return 0, fmt.Errorf("%q is not a port between 1 and %d", s, MaxPort)
	}
	return p, nil
}

// HostPorts lists the host ports the allocation holds on its node.
func (a *Allocation) HostPorts() []Port {
	var out []Port
	for _, n := range a.Networks {
		out = append(out, n.Ports()...)
	}
	return out
}

// DynamicPortRange is the range the node gives dynamic ports from: its
// min_dynamic_port and max_dynamic_port, Nomad's defaults where unset.
func (n *Node) DynamicPortRange() (lo, hi int) {
	lo, hi = DefaultMinDynamicPort, DefaultMaxDynamicPort
	if r := n.NodeResources; r != nil {
		if r.MinDynamicPort > 0 {
			lo = r.MinDynamicPort
		}
		if r.MaxDynamicPort > 0 {
			hi = r.MaxDynamicPort
		}
	}
	return lo, hi
}

// ReservedPorts is the set of host ports the node keeps back; a node
// whose list does not parse (the client checks it) reserves none.
func (n *Node) ReservedPorts() map[int]bool {
	if n.ReservedResources == nil {
		return map[int]bool{}
	}
	ports, err := ParsePortSpec(n.ReservedResources.Networks.ReservedHostPorts)
	if err != nil {
		return map[int]bool{}
	}
	return ports
}

// HostIP is the address the node gives ports on: the first address its
// client reported, empty when it reported none.
func (n *Node) HostIP() string {
	if r := n.NodeResources; r != nil {
		for _, net := range r.Networks {
			if net != nil && net.IP != "" {
				return net.IP
			}
		}
	}
	return ""
}
