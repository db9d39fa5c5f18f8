package convert

import (
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// networksFromAPI converts a group's network blocks.
func networksFromAPI(in []*api.NetworkResource) []*structs.NetworkResource {
	return convertSlice(in, func(n *api.NetworkResource) *structs.NetworkResource {
		if n == nil {
			return nil
		}
		return &structs.NetworkResource{
			Mode:          n.Mode,
			Device:        n.Device,
			CIDR:          n.CIDR,
			IP:            n.IP,
			Hostname:      n.Hostname,
			DNS:           (*structs.DNSConfig)(cloneDNS(n.DNS)),
			ReservedPorts: portsFromAPI(n.ReservedPorts),
			DynamicPorts:  portsFromAPI(n.DynamicPorts),
			MBits:         clonePtr(n.MBits),
		}
	})
}

// NetworksToAPI converts networks, a group's or an allocation's.
func NetworksToAPI(in []*structs.NetworkResource) []*api.NetworkResource {
	return convertSlice(in, func(n *structs.NetworkResource) *api.NetworkResource {
		if n == nil {
			return nil
		}
		return &api.NetworkResource{
			Mode:          n.Mode,
			Device:        n.Device,
			CIDR:          n.CIDR,
			IP:            n.IP,
			Hostname:      n.Hostname,
			DNS:           cloneDNS((*api.DNSConfig)(n.DNS)),
			ReservedPorts: portsToAPI(n.ReservedPorts),
			DynamicPorts:  portsToAPI(n.DynamicPorts),
			MBits:         clonePtr(n.MBits),
		}
	})
}

func cloneDNS(d *api.DNSConfig) *api.DNSConfig {
	if d == nil {
		return nil
	}
	return &api.DNSConfig{
		Servers:  slices.Clone(d.Servers),
		Searches: slices.Clone(d.Searches),
		Options:  slices.Clone(d.Options),
	}
}

func portsFromAPI(in []api.Port) []structs.Port {
	if in == nil {
		return nil
	}
	out := make([]structs.Port, len(in))
	for i, p := range in {
		out[i] = structs.Port(p)
	}
	return out
}

func portsToAPI(in []structs.Port) []api.Port {
	if in == nil {
		return nil
	}
	out := make([]api.Port, len(in))
	for i, p := range in {
		out[i] = api.Port(p)
	}
	return out
}

// portMappingsToAPI lists an allocation's ports as Nomad's
// AllocatedResources.Shared.Ports does.
func portMappingsToAPI(a *structs.Allocation) []api.PortMapping {
	in := a.PortMappings()
	if in == nil {
		return nil
	}
	out := make([]api.PortMapping, len(in))
	for i, p := range in {
		out[i] = api.PortMapping(p)
	}
	return out
}
