package api

// NetworkResource is a group's network block, and in an allocation the
// same block as the scheduler assigned it: the host's address and each
// port's host value. The names are those of Nomad's NetworkResource.
type NetworkResource struct {
	Mode          string
	Device        string
	CIDR          string
	IP            string
	DNS           *DNSConfig
	ReservedPorts []Port
	DynamicPorts  []Port
	Hostname      string
	// MBits is Nomad's deprecated bandwidth ask, which Nomad too has
	// ignored since 0.12: Drover reads it and reserves nothing.
	MBits *int `json:",omitempty"`
}

// Port is one port label of a network block: Value is the static host
// port (a dynamic port's the scheduler picks), To the port the task
// listens on where the network maps one.
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

// PortMapping is one port of an allocation: its host port, the port it
// maps to and the host address, as in AllocatedResources.Shared.Ports.
type PortMapping struct {
	Label  string
	Value  int
	To     int
	HostIP string
}

// NodeReservedNetworkResources are the host ports a node keeps back from
// allocations, as written in the client's reserved block ("22,8000-8100").
type NodeReservedNetworkResources struct {
	ReservedHostPorts string
}
