package taskrunner

import (
	"fmt"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// volumeMounts resolves the task's volume_mount blocks against its
// group's volume blocks and the node's host volumes. A volume is
// read-only when the node's host_volume, the group's volume or the mount
// says so. A driver that cannot mount volumes is refused, as Nomad
// refuses it, rather than run the task without them.
func volumeMounts(drv drivers.Driver, alloc *structs.Allocation, task *structs.Task, node *structs.Node) ([]*drivers.MountConfig, error) {
	if len(task.VolumeMounts) == 0 {
		return nil, nil
	}
	if m, ok := drv.(drivers.VolumeMounter); !ok || !m.MountsVolumes() {
		return nil, fmt.Errorf("volumes: task driver %q cannot mount volumes, and task %q has volume_mount blocks; use a driver that mounts them, such as exec or docker", task.Driver, task.Name)
	}
	tg := alloc.LookupTaskGroup()
	if tg == nil {
		return nil, fmt.Errorf("volumes: the allocation's job has no group %q", alloc.TaskGroup)
	}
	out := make([]*drivers.MountConfig, 0, len(task.VolumeMounts))
	for _, m := range task.VolumeMounts {
		mc, err := resolveMount(m, tg, alloc.Index(), node)
		if err != nil {
			return nil, fmt.Errorf("volumes: volume_mount %q at %q: %w", m.Volume, m.Destination, err)
		}
		out = append(out, mc)
	}
	return out, nil
}

func resolveMount(m *structs.VolumeMount, tg *structs.TaskGroup, allocIndex uint, node *structs.Node) (*drivers.MountConfig, error) {
	req := tg.Volumes[m.Volume]
	switch {
	case req == nil:
		return nil, fmt.Errorf("group %q has no volume %q", tg.Name, m.Volume)
	case req.Type != structs.VolumeTypeHost:
		return nil, fmt.Errorf("volume type %q is not supported", req.Type)
	}
	source := req.SourceFor(allocIndex)
	var hv *structs.ClientHostVolume
	if node != nil {
		hv = node.HostVolumes[source]
	}
	if hv == nil {
		return nil, fmt.Errorf("this node has no host volume %q", source)
	}
	return &drivers.MountConfig{
		TaskPath:        m.Destination,
		HostPath:        hv.Path,
		Readonly:        hv.ReadOnly || req.ReadOnly || m.ReadOnly,
		PropagationMode: m.PropagationMode,
	}, nil
}
