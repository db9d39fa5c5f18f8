package api

// Volume types a group's volume block may name.
const (
	VolumeTypeHost = "host"
	VolumeTypeCSI  = "csi"
)

// Propagation modes of a volume_mount.
const (
	VolumeMountPropagationPrivate       = "private"
	VolumeMountPropagationHostToTask    = "host-to-task"
	VolumeMountPropagationBidirectional = "bidirectional"
)

// VolumeRequest is a group's volume block: a volume the group's tasks may
// mount. Drover honours host volumes, which clients declare in their
// host_volume blocks; Source names one (with "[index]" appended for
// PerAlloc).
type VolumeRequest struct {
	Name           string
	Type           string
	Source         string
	ReadOnly       bool
	Sticky         bool
	AccessMode     string
	AttachmentMode string
	MountOptions   *CSIMountOptions
	PerAlloc       bool
}

// CSIMountOptions is a volume's mount_options block; only CSI volumes
// take it.
type CSIMountOptions struct {
	FSType     string   `json:",omitempty"`
	MountFlags []string `json:",omitempty"`
}

// VolumeMount is a task's volume_mount block: where in the task one of
// the group's volumes appears.
type VolumeMount struct {
	Volume          *string
	Destination     *string
	ReadOnly        *bool
	PropagationMode *string
	SELinuxLabel    *string
}

// HostVolumeInfo is one of a node's host volumes, as its client's
// host_volume block declares it.
type HostVolumeInfo struct {
	Path     string
	ReadOnly bool
	// ID is Nomad's, for dynamic host volumes; Drover's are all static.
	ID string `json:",omitempty"`
}
