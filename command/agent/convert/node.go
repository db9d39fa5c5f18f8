package convert

import (
	"maps"
	"net"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// NodeToAPI converts a node into its wire form. It shares no memory with n.
func NodeToAPI(n *structs.Node) *api.Node {
	if n == nil {
		return nil
	}
	return &api.Node{
		ID:                    n.ID,
		Datacenter:            n.Datacenter,
		Name:                  n.Name,
		HTTPAddr:              n.HTTPAddr,
		TLSEnabled:            n.TLSEnabled,
		Attributes:            maps.Clone(n.Attributes),
		NodeResources:         nodeResourcesToAPI(n.NodeResources),
		ReservedResources:     reservedResourcesToAPI(n.ReservedResources),
		Links:                 maps.Clone(n.Links),
		Meta:                  maps.Clone(n.Meta),
		NodeClass:             n.NodeClass,
		NodePool:              n.NodePool,
		Drain:                 n.Drain,
		DrainStrategy:         drainStrategyToAPI(n.DrainStrategy),
		SchedulingEligibility: n.SchedulingEligibility,
		Status:                n.Status,
		StatusDescription:     n.StatusDescription,
		StatusUpdatedAt:       n.StatusUpdatedAt,
		Events:                convertSlice(n.Events, nodeEventToAPI),
		Drivers:               convertMap(n.Drivers, driverInfoToAPI),
		HostVolumes:           hostVolumesToAPI(n.HostVolumes),
		CreateIndex:           n.CreateIndex,
		ModifyIndex:           n.ModifyIndex,
	}
}

// NodeStubFields picks the optional parts of a node stub, as the
// `resources` and `os` query parameters of GET /v1/nodes do.
type NodeStubFields struct {
	Resources bool // NodeResources and ReservedResources
	OS        bool // the os.name and os.version attributes
}

// NodeStub summarises a node with the optional parts fields asks for, as
// GET /v1/nodes returns it. Address is the host part of HTTPAddr. The stub
// shares no memory with n.
func NodeStub(n *structs.Node, fields NodeStubFields) *api.NodeListStub {
	s := &api.NodeListStub{
		Address:               hostOf(n.HTTPAddr),
		ID:                    n.ID,
		Datacenter:            n.Datacenter,
		Name:                  n.Name,
		NodeClass:             n.NodeClass,
		NodePool:              n.NodePool,
		Version:               n.Attributes[structs.NodeAttrVersion],
		Drain:                 n.Drain,
		SchedulingEligibility: n.SchedulingEligibility,
		Status:                n.Status,
		StatusDescription:     n.StatusDescription,
		Drivers:               convertMap(n.Drivers, driverInfoToAPI),
		CreateIndex:           n.CreateIndex,
		ModifyIndex:           n.ModifyIndex,
	}
	if fields.Resources {
		s.NodeResources = nodeResourcesToAPI(n.NodeResources)
		s.ReservedResources = reservedResourcesToAPI(n.ReservedResources)
	}
	if fields.OS {
		s.Attributes = make(map[string]string, 2)
		for _, k := range []string{structs.NodeAttrOSName, structs.NodeAttrOSVersion} {
			if v, ok := n.Attributes[k]; ok {
				s.Attributes[k] = v
			}
		}
	}
	return s
}

// hostOf returns the host of a host:port address, or the address itself
// when it has no port.
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

func nodeResourcesToAPI(r *structs.NodeResources) *api.NodeResources {
	if r == nil {
		return nil
	}
	return &api.NodeResources{
		Cpu:    api.NodeCpuResources(r.Cpu),
		Memory: api.NodeMemoryResources(r.Memory),
		Disk:   api.NodeDiskResources(r.Disk),

		Networks:       NetworksToAPI(r.Networks),
		MinDynamicPort: r.MinDynamicPort,
		MaxDynamicPort: r.MaxDynamicPort,
	}
}

func reservedResourcesToAPI(r *structs.NodeReservedResources) *api.NodeReservedResources {
	if r == nil {
		return nil
	}
	return &api.NodeReservedResources{
		Cpu:    api.NodeReservedCpuResources(r.Cpu),
		Memory: api.NodeReservedMemoryResources(r.Memory),
		Disk:   api.NodeReservedDiskResources(r.Disk),

		Networks: api.NodeReservedNetworkResources(r.Networks),
	}
}

func drainStrategyToAPI(d *structs.DrainStrategy) *api.DrainStrategy {
	if d == nil {
		return nil
	}
	return &api.DrainStrategy{
		DrainSpec:     api.DrainSpec{Deadline: d.Deadline, IgnoreSystemJobs: d.IgnoreSystemJobs},
		ForceDeadline: d.ForceDeadline,
		StartedAt:     d.StartedAt,
	}
}

func nodeEventToAPI(e *structs.NodeEvent) *api.NodeEvent {
	if e == nil {
		return nil
	}
	out := api.NodeEvent(*e)
	out.Details = maps.Clone(e.Details)
	return &out
}

func driverInfoToAPI(d *structs.DriverInfo) *api.DriverInfo {
	if d == nil {
		return nil
	}
	out := api.DriverInfo(*d)
	out.Attributes = maps.Clone(d.Attributes)
	return &out
}
