package api

import "time"

// Node statuses.
const (
	NodeStatusInit         = "initializing"
	NodeStatusReady        = "ready"
	NodeStatusDown         = "down"
	NodeStatusDisconnected = "disconnected"
)

// Node scheduling eligibility.
const (
	NodeSchedulingEligible   = "eligible"
	NodeSchedulingIneligible = "ineligible"
)

// Node is a client machine that runs allocations.
type Node struct {
	ID string
	// SecretID is always empty: a node's secret is never shown. Nomad's
	// answer has the field, empty, and its clients look for it.
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
	HostVolumes           map[string]*HostVolumeInfo
	CreateIndex           uint64
	ModifyIndex           uint64
}

// NodeListStub is the summary of a node that GET /v1/nodes returns.
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

// NodeResources is what a node offers to allocations.
type NodeResources struct {
	Cpu    NodeCpuResources
	Memory NodeMemoryResources
	Disk   NodeDiskResources
	// Networks are the host's addresses ports are given on.
	Networks []*NetworkResource
	// MinDynamicPort and MaxDynamicPort bound the dynamic ports.
	MinDynamicPort int
	MaxDynamicPort int
}

// NodeCpuResources is a node's CPU capacity.
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
	// Networks are the host ports kept back.
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
	DrainSpec
	ForceDeadline time.Time
	StartedAt     time.Time
}

// DrainSpec is what a user asks of a drain.
type DrainSpec struct {
	Deadline         time.Duration
	IgnoreSystemJobs bool
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

// NodeUpdateEligibilityRequest is the body of POST /v1/node/:id/eligibility.
type NodeUpdateEligibilityRequest struct {
	NodeID      string
	Eligibility string
}

// NodeEligibilityUpdateResponse is the answer to POST /v1/node/:id/eligibility.
type NodeEligibilityUpdateResponse struct {
	NodeModifyIndex uint64
	EvalIDs         []string
	EvalCreateIndex uint64
	WriteMeta
}

// NodeUpdateDrainRequest is the body of POST /v1/node/:id/drain. A nil
// DrainSpec cancels a drain; MarkEligible then also makes the node eligible
// again.
type NodeUpdateDrainRequest struct {
	NodeID       string
	DrainSpec    *DrainSpec
	MarkEligible bool
	Meta         map[string]string `json:",omitempty"`
}

// NodeDrainUpdateResponse is the answer to POST /v1/node/:id/drain.
type NodeDrainUpdateResponse struct {
	NodeModifyIndex uint64
	EvalIDs         []string
	EvalCreateIndex uint64
	WriteMeta
}
