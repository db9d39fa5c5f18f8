package convert

import (
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// volumesFromAPI converts a group's volume requests. A request without a
// name takes the one it is listed under, as the HCL label gives it; null
// entries stay nil, for validation to name.
func volumesFromAPI(in map[string]*api.VolumeRequest) map[string]*structs.VolumeRequest {
	if in == nil {
		return nil
	}
	out := make(map[string]*structs.VolumeRequest, len(in))
	for name, v := range in {
		if v == nil {
			out[name] = nil
			continue
		}
		r := &structs.VolumeRequest{
			Name: v.Name, Type: v.Type, Source: v.Source, ReadOnly: v.ReadOnly, Sticky: v.Sticky,
			AccessMode: v.AccessMode, AttachmentMode: v.AttachmentMode, PerAlloc: v.PerAlloc,
		}
		if r.Name == "" {
			r.Name = name
		}
		if o := v.MountOptions; o != nil {
			r.MountOptions = &structs.VolumeMountOptions{FSType: o.FSType, MountFlags: slices.Clone(o.MountFlags)}
		}
		out[name] = r
	}
	return out
}

func volumesToAPI(in map[string]*structs.VolumeRequest) map[string]*api.VolumeRequest {
	return convertMap(in, func(v *structs.VolumeRequest) *api.VolumeRequest {
		if v == nil {
			return nil
		}
		r := &api.VolumeRequest{
			Name: v.Name, Type: v.Type, Source: v.Source, ReadOnly: v.ReadOnly, Sticky: v.Sticky,
			AccessMode: v.AccessMode, AttachmentMode: v.AttachmentMode, PerAlloc: v.PerAlloc,
		}
		if o := v.MountOptions; o != nil {
			r.MountOptions = &api.CSIMountOptions{FSType: o.FSType, MountFlags: slices.Clone(o.MountFlags)}
		}
		return r
	})
}

// volumeMountsFromAPI converts a task's volume mounts; a missing
// propagation mode is Nomad's default, private.
func volumeMountsFromAPI(in []*api.VolumeMount) []*structs.VolumeMount {
	return convertSlice(in, func(m *api.VolumeMount) *structs.VolumeMount {
		if m == nil {
			return nil
		}
		out := &structs.VolumeMount{
			Volume:          Deref(m.Volume),
			Destination:     Deref(m.Destination),
			ReadOnly:        Deref(m.ReadOnly),
			PropagationMode: structs.VolumeMountPropagationPrivate,
			SELinuxLabel:    Deref(m.SELinuxLabel),
		}
		setIf(&out.PropagationMode, m.PropagationMode)
		return out
	})
}

func volumeMountsToAPI(in []*structs.VolumeMount) []*api.VolumeMount {
	return convertSlice(in, func(m *structs.VolumeMount) *api.VolumeMount {
		if m == nil {
			return nil
		}
		out := &api.VolumeMount{
			Volume:          new(m.Volume),
			Destination:     new(m.Destination),
			ReadOnly:        new(m.ReadOnly),
			PropagationMode: new(m.PropagationMode),
		}
		if m.SELinuxLabel != "" {
			out.SELinuxLabel = new(m.SELinuxLabel)
		}
		return out
	})
}

func hostVolumesToAPI(in map[string]*structs.ClientHostVolume) map[string]*api.HostVolumeInfo {
	return convertMap(in, func(h *structs.ClientHostVolume) *api.HostVolumeInfo {
		if h == nil {
			return nil
		}
		return &api.HostVolumeInfo{Path: h.Path, ReadOnly: h.ReadOnly}
	})
}
