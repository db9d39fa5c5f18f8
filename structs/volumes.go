package structs

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
)

// Volume types. Only host volumes can be honoured: a CSI volume needs a
// CSI plugin, which Drover cannot run.
const (
	VolumeTypeHost = "host"
	VolumeTypeCSI  = "csi"
)

// Propagation modes of a volume mount, as Nomad names them.
const (
	VolumeMountPropagationPrivate       = "private"
	VolumeMountPropagationHostToTask    = "host-to-task"
	VolumeMountPropagationBidirectional = "bidirectional"
)

// Access and attachment modes a host volume request may give, as Nomad's.
var (
	hostVolumeAccessModes = []string{
		"", "single-node-reader-only", "single-node-writer",
		"single-node-single-writer", "single-node-multi-writer",
	}
	// The reader-only modes need read_only = true.
	readerOnlyAccessModes = []string{"single-node-reader-only", "multi-node-reader-only"}
)

// AttachmentModeFileSystem is the only attachment a host volume has: a
// directory mounted into the task.
const AttachmentModeFileSystem = "file-system"

// VolumeRequest is a group's volume block: a host volume, named by Source,
// that the node must have for the group to be placed there.
type VolumeRequest struct {
	Name           string
	Type           string
	Source         string
	ReadOnly       bool
	Sticky         bool
	AccessMode     string
	AttachmentMode string
	MountOptions   *VolumeMountOptions
	// PerAlloc: each allocation asks for Source + "[index]", its own
	// volume.
	PerAlloc bool
}

// VolumeMountOptions is a volume's mount_options; only CSI volumes take it,
// so a request with it is refused.
type VolumeMountOptions struct {
	FSType     string
	MountFlags []string
}

// VolumeMount is a task's volume_mount: the group volume Volume appears
// in the task at Destination.
type VolumeMount struct {
	Volume          string
	Destination     string
	ReadOnly        bool
	PropagationMode string
	SELinuxLabel    string
}

// ClientHostVolume is one of a node's host volumes: a directory on the
// machine its client's operator offers to jobs under a name (its key in
// Node.HostVolumes).
type ClientHostVolume struct {
	Path     string
	ReadOnly bool
}

// SourceFor returns the name of the node's host volume the allocation
// with the given index needs.
func (v *VolumeRequest) SourceFor(allocIndex uint) string {
	if v.PerAlloc {
		return v.Source + "[" + strconv.FormatUint(uint64(allocIndex), 10) + "]"
	}
	return v.Source
}

// Copy returns a deep copy of the request.
func (v *VolumeRequest) Copy() *VolumeRequest {
	if v == nil {
		return nil
	}
	c := *v
	if v.MountOptions != nil {
		o := *v.MountOptions
		o.MountFlags = slices.Clone(o.MountFlags)
		c.MountOptions = &o
	}
	return &c
}

// Copy returns a copy of the mount.
func (m *VolumeMount) Copy() *VolumeMount { return clonePtr(m) }

// Copy returns a copy of the host volume.
func (h *ClientHostVolume) Copy() *ClientHostVolume { return clonePtr(h) }

// validateVolumes checks the group's volume blocks and every task's
// volume_mount blocks against them.
func (tg *TaskGroup) validateVolumes(p *problems, where string) {
	for _, name := range slices.Sorted(maps.Keys(tg.Volumes)) {
		tg.Volumes[name].validate(p, fmt.Sprintf("%s volume %q", where, name), name)
	}
	for i, t := range tg.Tasks {
		if t == nil {
			continue
		}
		taskWhere := taskWhere(where, i, t)
		seen := map[string]bool{}
		for j, m := range t.VolumeMounts {
			mountWhere := fmt.Sprintf("%s volume_mount #%d", taskWhere, j+1)
			if m == nil {
				p.add(mountWhere, "Missing definition (null)")
				continue
			}
			m.validate(p, mountWhere, tg.Volumes)
			if seen[m.Destination] && m.Destination != "" {
				p.add(mountWhere, "destination %q is used by another volume_mount of the task", m.Destination)
			}
			seen[m.Destination] = true
		}
	}
}

func (v *VolumeRequest) validate(p *problems, where, key string) {
	if v == nil {
		p.add(where, "Missing definition (null)")
		return
	}
	if v.Name != key {
		p.add(where, "Name %q differs from the name the volume is listed under", v.Name)
	}
	switch v.Type {
	case VolumeTypeHost:
	case VolumeTypeCSI:
		p.add(where, `type "csi" is not supported: a CSI volume needs a CSI plugin, which Drover cannot run; use a host volume (type = "host")`)
		return
	case "":
		p.add(where, `type is missing: Drover supports type = "host"`)
		return
	default:
		p.add(where, `type %q is unknown: Drover supports type = "host"`, v.Type)
		return
	}
	if v.Source == "" {
		p.add(where, "source is missing: it names the client's host_volume to mount")
	}
	if v.MountOptions != nil {
		p.add(where, "mount_options is for CSI volumes; a host volume takes none")
	}
	if !slices.Contains(hostVolumeAccessModes, v.AccessMode) {
		p.add(where, "access_mode %q is not one a host volume takes (%s)", v.AccessMode, quotedList(hostVolumeAccessModes[1:]))
	} else if slices.Contains(readerOnlyAccessModes, v.AccessMode) && !v.ReadOnly {
		p.add(where, "access_mode %q needs read_only = true", v.AccessMode)
	}
	if v.AttachmentMode != "" && v.AttachmentMode != AttachmentModeFileSystem {
		p.add(where, "attachment_mode %q is not supported: a host volume is mounted as a directory (%q)", v.AttachmentMode, AttachmentModeFileSystem)
	}
}

func (m *VolumeMount) validate(p *problems, where string, volumes map[string]*VolumeRequest) {
	switch {
	case m.Volume == "":
		p.add(where, "volume is missing: it names one of the group's volume blocks")
	case volumes[m.Volume] == nil:
		p.add(where, "volume %q is not one of the group's volume blocks", m.Volume)
	}
	switch {
	case m.Destination == "":
		p.add(where, "destination is missing")
	case !path.IsAbs(m.Destination):
		p.add(where, "destination %q is not an absolute path", m.Destination)
	case path.Clean(m.Destination) != m.Destination:
		p.add(where, "destination %q is not a clean path (it would be %q)", m.Destination, path.Clean(m.Destination))
	case m.Destination == "/":
		p.add(where, `destination "/" would replace the task's whole file system`)
	}
	switch m.PropagationMode {
	case "", VolumeMountPropagationPrivate, VolumeMountPropagationHostToTask, VolumeMountPropagationBidirectional:
	default:
		p.add(where, "propagation_mode %q is not %q, %q or %q", m.PropagationMode,
			VolumeMountPropagationPrivate, VolumeMountPropagationHostToTask, VolumeMountPropagationBidirectional)
	}
	if m.SELinuxLabel != "" {
		p.add(where, "selinux_label is not supported: Drover does not relabel volumes")
	}
}

func quotedList(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(x)
	}
	return out
}

// addVolumeFields adds a group's volumes to its plan diff's fields.
func addVolumeFields(m map[string]string, vs map[string]*VolumeRequest) {
	for name, v := range vs {
		if v == nil {
			continue
		}
		k := "Volume[" + name + "]."
		m[k+"Type"] = v.Type
		m[k+"Source"] = v.Source
		m[k+"ReadOnly"] = strconv.FormatBool(v.ReadOnly)
		m[k+"PerAlloc"] = strconv.FormatBool(v.PerAlloc)
		m[k+"AccessMode"] = v.AccessMode
		m[k+"AttachmentMode"] = v.AttachmentMode
	}
}

// addVolumeMountFields adds a task's volume mounts to its plan diff's
// fields.
func addVolumeMountFields(m map[string]string, ms []*VolumeMount) {
	for i, v := range ms {
		if v == nil {
			continue
		}
		k := "VolumeMount[" + strconv.Itoa(i) + "]."
		m[k+"Volume"] = v.Volume
		m[k+"Destination"] = v.Destination
		m[k+"ReadOnly"] = strconv.FormatBool(v.ReadOnly)
		m[k+"PropagationMode"] = v.PropagationMode
	}
}
