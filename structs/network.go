package structs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Network modes a group's network block may ask for. Every mode but host
// gives the allocation a network namespace of its own (client/cni).
const (
	NetworkModeHost   = "host"
	NetworkModeBridge = "bridge"
	NetworkModeNone   = "none"
	// NetworkModeCNIPrefix starts a mode that names a CNI network
	// ("cni/mynet").
	NetworkModeCNIPrefix = "cni/"
)

// The client's default range of dynamic ports, as Nomad's
// (min_dynamic_port, max_dynamic_port).
const (
	DefaultMinDynamicPort = 20000
	DefaultMaxDynamicPort = 32000
	// MaxPort is the highest TCP/UDP port.
	MaxPort = 65535
	// MaxPortsPerNetwork bounds the ports one network block asks for, so
	// that a job cannot make the scheduler walk unbounded lists.
	MaxPortsPerNetwork = 1000
)

// NetworkResource is a group's network block, and, in an allocation, the
// same block with the host's address and every port's host value filled in
// by the scheduler. Its names are those of Nomad's NetworkResource.
type NetworkResource struct {
	Mode     string
	Device   string
	CIDR     string
	IP       string
	Hostname string
	DNS      *DNSConfig
	// ReservedPorts are the ports with a static host value.
	ReservedPorts []Port
	// DynamicPorts are the ports the scheduler picks a host value for.
	DynamicPorts []Port
	// MBits is Nomad's deprecated bandwidth ask, kept so that the job
	// reads back as written; as in Nomad, nothing is reserved for it.
	MBits *int `json:",omitempty"`
}

// Port is one port label of a network block: Value is the host port (the
// static one, or the one the scheduler picked), To the port the task
// listens on where the network maps it (0: the same as Value).
type Port struct {
	Label       string
	Value       int
	To          int
	HostNetwork string
}

// DNSConfig is a network's dns block.
type DNSConfig struct {
	Servers  []string
	Searches []string
	Options  []string
}

// AllocNetworkStatus is an allocation's address in its own network
// namespace, as Nomad's api.AllocNetworkStatus.
type AllocNetworkStatus struct {
	InterfaceName string
	Address       string
	AddressIPv6   string
	DNS           *DNSConfig
}

// Copy returns a deep copy of the status.
func (s *AllocNetworkStatus) Copy() *AllocNetworkStatus {
	if s == nil {
		return nil
	}
	c := *s
	if s.DNS != nil {
		c.DNS = &DNSConfig{
			Servers:  slices.Clone(s.DNS.Servers),
			Searches: slices.Clone(s.DNS.Searches),
			Options:  slices.Clone(s.DNS.Options),
		}
	}
	return &c
}

// HasNamespace reports whether a network mode gives the allocation a
// network namespace of its own.
func HasNamespace(mode string) bool {
	return mode == NetworkModeBridge || mode == NetworkModeNone || strings.HasPrefix(mode, NetworkModeCNIPrefix)
}

// NetworkMode is the mode of the group's network: host without one.
func (tg *TaskGroup) NetworkMode() string {
	if len(tg.Networks) == 0 || tg.Networks[0] == nil {
		return NetworkModeHost
	}
	return tg.Networks[0].ModeOrDefault()
}

// HasNetworkMode reports whether the node offers a network mode: host
// always, the others where its client fingerprinted them.
func (n *Node) HasNetworkMode(mode string) bool {
	if mode == NetworkModeHost {
		return true
	}
	if r := n.NodeResources; r != nil {
		for _, net := range r.Networks {
			if net != nil && net.Mode == mode {
				return true
			}
		}
	}
	return false
}

// AllocatedPortMapping is one port of an allocation, as Nomad lists it in
// AllocatedResources.Shared.Ports.
type AllocatedPortMapping struct {
	Label  string
	Value  int
	To     int
	HostIP string
}

// NodeReservedNetworkResources is what a node keeps back of its ports:
// Nomad's reserved_ports, a list such as "22,80,8000-8100".
type NodeReservedNetworkResources struct {
	ReservedHostPorts string
}

// Copy returns a deep copy of the network.
func (n *NetworkResource) Copy() *NetworkResource {
	if n == nil {
		return nil
	}
	c := *n
	if n.DNS != nil {
		c.DNS = &DNSConfig{
			Servers:  slices.Clone(n.DNS.Servers),
			Searches: slices.Clone(n.DNS.Searches),
			Options:  slices.Clone(n.DNS.Options),
		}
	}
	c.MBits = clonePtr(n.MBits)
	c.ReservedPorts = slices.Clone(n.ReservedPorts)
	c.DynamicPorts = slices.Clone(n.DynamicPorts)
	return &c
}

// CopyNetworks returns a deep copy of networks.
func CopyNetworks(networks []*NetworkResource) []*NetworkResource {
	return copyEach(networks, (*NetworkResource).Copy)
}

// Ports lists the network's ports, static ones first.
func (n *NetworkResource) Ports() []Port {
	return append(slices.Clone(n.ReservedPorts), n.DynamicPorts...)
}

// ModeOrDefault is the network's mode, host when none is set.
func (n *NetworkResource) ModeOrDefault() string {
	if n.Mode == "" {
		return NetworkModeHost
	}
	return n.Mode
}

// PortMappings lists the ports of an allocation's networks, as Nomad's
// AllocatedResources.Shared.Ports: the host port, the port it maps to
// and the host address. A port without a To (or with Nomad's -1) maps to
// its own value.
func (a *Allocation) PortMappings() []AllocatedPortMapping {
	var out []AllocatedPortMapping
	for _, n := range a.Networks {
		for _, p := range n.Ports() {
			to := p.To
			if to <= 0 {
				to = p.Value
			}
			out = append(out, AllocatedPortMapping{Label: p.Label, Value: p.Value, To: to, HostIP: n.IP})
		}
	}
	return out
}

// Copy returns a deep copy of the node's resources.
func (r *NodeResources) Copy() *NodeResources {
	if r == nil {
		return nil
	}
	c := *r
	c.Networks = CopyNetworks(r.Networks)
	return &c
}

// addNetworkFields adds a group's networks to its flattened diff form,
// each port under its label: "Network.Port[http].Static".
func addNetworkFields(m map[string]string, networks []*NetworkResource) {
	for i, n := range networks {
		if n == nil {
			continue
		}
		prefix := "Network"
		if i > 0 {
			prefix = fmt.Sprintf("Network[%d]", i)
		}
		m[prefix+".Mode"] = n.ModeOrDefault()
		if n.Hostname != "" {
			m[prefix+".Hostname"] = n.Hostname
		}
		if n.DNS != nil {
			m[prefix+".DNS.Servers"] = strings.Join(n.DNS.Servers, ",")
			m[prefix+".DNS.Searches"] = strings.Join(n.DNS.Searches, ",")
			m[prefix+".DNS.Options"] = strings.Join(n.DNS.Options, ",")
		}
		for _, p := range n.ReservedPorts {
			m[prefix+".Port["+p.Label+"].Static"] = strconv.Itoa(p.Value)
			m[prefix+".Port["+p.Label+"].To"] = strconv.Itoa(p.To)
		}
		for _, p := range n.DynamicPorts {
			m[prefix+".Port["+p.Label+"].Static"] = ""
			m[prefix+".Port["+p.Label+"].To"] = strconv.Itoa(p.To)
		}
	}
}
