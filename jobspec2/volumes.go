package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var volumeSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "source"}, {Name: "read_only"}, {Name: "sticky"},
		{Name: "access_mode"}, {Name: "attachment_mode"}, {Name: "per_alloc"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "mount_options"}},
}

var mountOptionsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "fs_type"}, {Name: "mount_flags"}},
}

var volumeMountSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "volume"}, {Name: "destination"}, {Name: "read_only"},
		{Name: "propagation_mode"}, {Name: "selinux_label"},
	},
}

// volumes decodes a group's volume blocks, keyed by their labels; a label
// used twice is an error at the second block.
func (d *decoder) volumes(blocks hcl.Blocks) map[string]*api.VolumeRequest {
	if len(blocks) == 0 {
		return nil
	}
	out := make(map[string]*api.VolumeRequest, len(blocks))
	seen := map[string]hcl.Range{}
	for _, b := range blocks {
		name := label(b)
		if prev, dup := seen[name]; dup {
			d.add(errorAt(b.DefRange, "Duplicate volume",
				fmt.Sprintf("Volume %q was already defined at %s.", name, d.at(prev))))
			continue
		}
		seen[name] = b.DefRange
		out[name] = d.volume(b, name)
	}
	return out
}

func (d *decoder) volume(block *hcl.Block, name string) *api.VolumeRequest {
	content := d.content(block.Body, volumeSchema)
	attrs := content.Attributes
	v := &api.VolumeRequest{
		Name:           name,
		Type:           d.stringValue(attrs["type"]),
		Source:         d.stringValue(attrs["source"]),
		AccessMode:     d.stringValue(attrs["access_mode"]),
		AttachmentMode: d.stringValue(attrs["attachment_mode"]),
		ReadOnly:       d.boolValue(attrs["read_only"]),
		Sticky:         d.boolValue(attrs["sticky"]),
		PerAlloc:       d.boolValue(attrs["per_alloc"]),
	}
	if b := d.single(blocksOfType(content, "mount_options")); b != nil {
		o := d.content(b.Body, mountOptionsSchema).Attributes
		v.MountOptions = &api.CSIMountOptions{
			FSType:     d.stringValue(o["fs_type"]),
			MountFlags: d.strings(o["mount_flags"]),
		}
	}
	return v
}

func (d *decoder) volumeMounts(blocks hcl.Blocks) []*api.VolumeMount {
	var out []*api.VolumeMount
	for _, b := range blocks {
		attrs := d.content(b.Body, volumeMountSchema).Attributes
		out = append(out, &api.VolumeMount{
			Volume:          d.string(attrs["volume"]),
			Destination:     d.string(attrs["destination"]),
			ReadOnly:        d.bool(attrs["read_only"]),
			PropagationMode: d.string(attrs["propagation_mode"]),
			SELinuxLabel:    d.string(attrs["selinux_label"]),
		})
	}
	return out
}

// boolValue reads an optional bool; missing is false.
func (d *decoder) boolValue(attr *hcl.Attribute) bool {
	b := d.bool(attr)
	return b != nil && *b
}
