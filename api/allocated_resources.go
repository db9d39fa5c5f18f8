package api

// AllocatedResources is what an allocation holds on its node, in the shape
// of Nomad's allocation field of that name: each task's CPU and memory,
// and the disk the group's tasks share.
type AllocatedResources struct {
	Tasks  map[string]*AllocatedTaskResources
	Shared AllocatedSharedResources
}

// AllocatedTaskResources is one task's share of an allocation.
type AllocatedTaskResources struct {
	Cpu    AllocatedCpuResources
	Memory AllocatedMemoryResources
}

// AllocatedCpuResources is a task's CPU, in MHz.
type AllocatedCpuResources struct {
	CpuShares int64
}

// AllocatedMemoryResources is a task's memory: what it reserves and, with
// memory_max, what it may use.
type AllocatedMemoryResources struct {
	MemoryMB    int64
	MemoryMaxMB int64
}

// AllocatedSharedResources is what the group's tasks share: its
// ephemeral_disk, its network and the ports assigned on the node.
type AllocatedSharedResources struct {
	DiskMB   int64
	Networks []*NetworkResource
	Ports    []PortMapping
}
