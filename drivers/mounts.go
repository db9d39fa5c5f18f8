package drivers

// MountConfig is one host volume a task mounts (a group volume block, a
// task volume_mount block and the node's host_volume, resolved by the
// task runner).
type MountConfig struct {
	// TaskPath is where the task sees the volume: the volume_mount's
	// destination, from the job author, so a driver must keep it inside
	// the task's own file system.
	TaskPath string
	// HostPath is the directory the client's operator configured for the
	// volume: trusted.
	HostPath string
	// Readonly is set when the node, the group or the mount asks for it.
	Readonly bool
	// PropagationMode is "private", "host-to-task" or "bidirectional".
	PropagationMode string
}

// VolumeMounter is implemented by a driver that honours TaskConfig.Mounts.
// The task runner refuses to start a task that mounts volumes with a
// driver that does not, as Nomad does for drivers without mount support
// (raw_exec: its tasks see the whole machine, and no mount is made).
type VolumeMounter interface {
	MountsVolumes() bool
}
