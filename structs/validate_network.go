package structs

import (
	"net/netip"
	"strings"
)

// validateNetworks checks a group's network block: the one place its
// rules live.
func (tg *TaskGroup) validateNetworks(p *problems, where string) {
	if len(tg.Networks) > 1 {
		p.add(where, "only one network block is allowed in a group, got %d", len(tg.Networks))
	}
	labels := map[string]bool{}
	statics := map[int]string{}
	for _, n := range tg.Networks {
		if n == nil {
			p.add(where, "network block must not be null")
			continue
		}
		validateNetworkMode(p, where, n)
		if n.Hostname != "" {
			p.add(where, "network hostname needs a UTS namespace per allocation, which Drover does not make yet: remove hostname")
		}
		if mode := n.ModeOrDefault(); HasNamespace(mode) {
			for _, t := range tg.Tasks {
				if t != nil && t.Driver == "docker" {
					p.add(where, "task %q: docker tasks cannot join the group's network namespace (mode = %q) yet: use mode = %q, or the raw_exec or exec driver", t.Name, mode, NetworkModeHost)
				}
			}
			if mode == NetworkModeNone && len(n.ReservedPorts)+len(n.DynamicPorts) > 0 {
				p.add(where, "network mode %q has only loopback: no port can be mapped to it, remove the port blocks", mode)
			}
		}
		validateDNS(p, where, n.DNS)
		if len(n.ReservedPorts)+len(n.DynamicPorts) > MaxPortsPerNetwork {
			p.add(where, "a network block may have at most %d ports, got %d", MaxPortsPerNetwork, len(n.ReservedPorts)+len(n.DynamicPorts))
			continue
		}
		for _, port := range n.ReservedPorts {
			validatePort(p, where, port, labels)
			if port.Value < 1 || port.Value > MaxPort {
				p.add(where, "network port %q: static must be between 1 and %d, got %d", port.Label, MaxPort, port.Value)
			} else if other, dup := statics[port.Value]; dup {
				p.add(where, "network ports %q and %q both ask for static port %d", other, port.Label, port.Value)
			} else {
				statics[port.Value] = port.Label
			}
		}
		for _, port := range n.DynamicPorts {
			validatePort(p, where, port, labels)
			if port.Value != 0 {
				p.add(where, "network port %q: a dynamic port has no value, got %d", port.Label, port.Value)
			}
		}
	}
}

func validateNetworkMode(p *problems, where string, n *NetworkResource) {
	switch mode := n.ModeOrDefault(); {
	case mode == NetworkModeHost, mode == NetworkModeBridge, mode == NetworkModeNone:
	case strings.HasPrefix(mode, NetworkModeCNIPrefix):
		name := strings.TrimPrefix(mode, NetworkModeCNIPrefix)
		if name == "" || len(name) > 128 || strings.ContainsAny(name, "/\\") || printableProblem(name) != "" || strings.ContainsAny(name, " \t") {
			p.add(where, "network mode %q must name a CNI network: \"cni/<name>\", the name one printable word without '/'", mode)
		}
	default:
		p.add(where, "network mode must be %q, %q, %q or \"cni/<name>\", got %q", NetworkModeHost, NetworkModeBridge, NetworkModeNone, mode)
	}
}

func validatePort(p *problems, where string, port Port, labels map[string]bool) {
	switch {
	case port.Label == "":
		p.add(where, "network port label must not be empty")
	case labels[port.Label]:
		p.add(where, "network port label %q is used twice", port.Label)
	case !validPortLabel(port.Label):
		p.add(where, "network port label %q may hold only letters, digits, '_' and '-'", port.Label)
	}
	labels[port.Label] = true
	// -1 is Nomad's "not mapped", which its Connect sidecars use.
	if port.To < -1 || port.To > MaxPort {
		p.add(where, "network port %q: to must be between -1 and %d, got %d", port.Label, MaxPort, port.To)
	}
	if port.HostNetwork != "" && port.HostNetwork != "default" {
		p.add(where, "network port %q: host_network %q: Drover's clients have no host_network blocks, only the default network", port.Label, port.HostNetwork)
	}
}

// validPortLabel: labels become parts of environment variable names
// (NOMAD_PORT_<label>).
func validPortLabel(label string) bool {
	if len(label) > 128 {
		return false
	}
	for _, r := range label {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func validateDNS(p *problems, where string, dns *DNSConfig) {
	if dns == nil {
		return
	}
	for _, s := range dns.Servers {
		if _, err := netip.ParseAddr(s); err != nil {
			p.add(where, "network dns server %q is not an IP address", s)
		}
	}
	for _, list := range [][]string{dns.Searches, dns.Options} {
		for _, v := range list {
			if problem := printableProblem(v); problem != "" || v == "" || strings.ContainsAny(v, " \t") {
				p.add(where, "network dns search or option %q must be one printable word", v)
			}
		}
	}
}
