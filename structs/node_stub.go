package structs

import "net"

// NodeAttrVersion is the node attribute that holds the client's version, as
// the node list shows it.
const NodeAttrVersion = "nomad.version"

// Node attributes that NodeStubFields.OS adds to a stub.
const (
	NodeAttrOSName    = "os.name"
	NodeAttrOSVersion = "os.version"
)

// NodeListStub is the summary of a node that GET /v1/nodes returns; it
// mirrors api.NodeListStub.
type NodeListStub struct {
	Address               string
	ID                    string
	Attributes            map[string]string `json:",omitempty"`
	Datacenter            string
	Name                  string
	NodeClass             string
	NodePool              string
	Version               string
	Drain                 bool
	SchedulingEligibility string
	Status                string
	StatusDescription     string
	Drivers               map[string]*DriverInfo
	NodeResources         *NodeResources         `json:",omitempty"`
	ReservedResources     *NodeReservedResources `json:",omitempty"`
	CreateIndex           uint64
	ModifyIndex           uint64
}

// NodeStubFields picks the optional parts of a node stub, as the
// `resources` and `os` query parameters of GET /v1/nodes do.
type NodeStubFields struct {
	Resources bool // NodeResources and ReservedResources
	OS        bool // the os.name and os.version attributes
}

// Stub summarises the node without its optional parts.
func (n *Node) Stub() *NodeListStub {
	return n.StubWith(NodeStubFields{})
}

// StubWith summarises the node with the optional parts fields asks for.
// Address is the host part of HTTPAddr. The stub shares Drivers with the
// node: treat it as read-only.
func (n *Node) StubWith(fields NodeStubFields) *NodeListStub {
	s := &NodeListStub{
		Address:               hostOf(n.HTTPAddr),
		ID:                    n.ID,
		Datacenter:            n.Datacenter,
		Name:                  n.Name,
		NodeClass:             n.NodeClass,
		NodePool:              n.NodePool,
		Version:               n.Attributes[NodeAttrVersion],
		Drain:                 n.Drain,
		SchedulingEligibility: n.SchedulingEligibility,
		Status:                n.Status,
		StatusDescription:     n.StatusDescription,
		Drivers:               n.Drivers,
		CreateIndex:           n.CreateIndex,
		ModifyIndex:           n.ModifyIndex,
	}
	if fields.Resources {
		s.NodeResources = clonePtr(n.NodeResources)
		s.ReservedResources = clonePtr(n.ReservedResources)
	}
	if fields.OS {
		s.Attributes = make(map[string]string, 2)
		for _, k := range []string{NodeAttrOSName, NodeAttrOSVersion} {
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
