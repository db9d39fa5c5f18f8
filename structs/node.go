package structs

import "time"

// NodeAttrVersion is the node attribute that holds the client's version.
const NodeAttrVersion = "nomad.version"

// Node attributes that name the client's operating system.
const (
	NodeAttrOSName    = "os.name"
	NodeAttrOSVersion = "os.version"
)

// Node statuses.
const (
	NodeStatusInit  = "initializing"
	NodeStatusReady = "ready"
	NodeStatusDown  = "down"
)

// Node scheduling eligibility.
const (
	NodeSchedulingEligible   = "eligible"
	NodeSchedulingIneligible = "ineligible"
)

// Node is a client machine that runs allocations.
type Node struct {
	ID string
	// SecretID is the node's secret: the client generates it, keeps it in
	// its state dir, and proves it on every call it makes to the servers.
	// It never leaves the servers: the HTTP API does not show it.
	SecretID              string
	Datacenter            string
	Name                  string
	HTTPAddr              string
	TLSEnabled            bool
	Attributes            map[string]string
	NodeResources         *NodeResources
	ReservedResources     *NodeReservedResources
	Links                 map[string]string
	Meta                  map[string]string
	NodeClass             string
	NodePool              string
	Drain                 bool
	DrainStrategy         *DrainStrategy
	SchedulingEligibility string
	Status                string
	StatusDescription     string
	StatusUpdatedAt       int64
	Events                []*NodeEvent
	Drivers               map[string]*DriverInfo
	// HostVolumes are the directories the client's operator offers to
	// jobs, by name (the client's host_volume blocks).
	HostVolumes map[string]*ClientHostVolume `json:",omitempty"`
	CreateIndex uint64
	ModifyIndex uint64
}

// Ready reports whether the node can take new allocations.
func (n *Node) Ready() bool {
	return n.Status == NodeStatusReady && !n.Drain && n.SchedulingEligibility == NodeSchedulingEligible
}

// NodeResources is a node's capacity. Its JSON shape is the wire shape.
type NodeResources struct {
	Cpu    NodeCpuResources
	Memory NodeMemoryResources
	Disk   NodeDiskResources
	// Networks are the host's addresses that ports are given on (the
	// client's network_interface, or the agent's address).
	Networks []*NetworkResource
	// MinDynamicPort and MaxDynamicPort bound the ports the scheduler
	// picks for dynamic ports on the node; zero means Nomad's defaults.
	MinDynamicPort int
	MaxDynamicPort int
}

// NodeCpuResources is a node's CPU capacity in MHz shares and cores.
type NodeCpuResources struct {
	CpuShares     int64
	TotalCpuCores uint16
}

// NodeMemoryResources is a node's memory capacity.
type NodeMemoryResources struct {
	MemoryMB int64
}

// NodeDiskResources is a node's disk capacity.
type NodeDiskResources struct {
	DiskMB int64
}

// NodeReservedResources is what a node keeps back from allocations.
type NodeReservedResources struct {
	Cpu    NodeReservedCpuResources
	Memory NodeReservedMemoryResources
	Disk   NodeReservedDiskResources
	// Networks are the host ports no allocation may be given.
	Networks NodeReservedNetworkResources
}

// NodeReservedCpuResources is CPU kept back from allocations.
type NodeReservedCpuResources struct {
	CpuShares uint64
}

// NodeReservedMemoryResources is memory kept back from allocations.
type NodeReservedMemoryResources struct {
	MemoryMB uint64
}

// NodeReservedDiskResources is disk kept back from allocations.
type NodeReservedDiskResources struct {
	DiskMB uint64
}

// DrainStrategy describes an ongoing drain of a node.
type DrainStrategy struct {
	Deadline         time.Duration
	IgnoreSystemJobs bool
	ForceDeadline    time.Time
	StartedAt        time.Time
}

// NodeEvent is one thing that happened to a node.
type NodeEvent struct {
	Message     string
	Subsystem   string
	Details     map[string]string
	Timestamp   time.Time
	CreateIndex uint64
}

// DriverInfo is a driver's fingerprint on a node.
type DriverInfo struct {
	Attributes        map[string]string
	Detected          bool
	Healthy           bool
	HealthDescription string
	UpdateTime        time.Time
}
