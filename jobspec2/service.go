package jobspec2

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var serviceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"}, {Name: "tags"}, {Name: "port"}, {Name: "address_mode"}, {Name: "address"},
		{Name: "meta"}, {Name: "task"}, {Name: "provider"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "meta"}},
}

// services decodes a group's or a task's service blocks.
func (d *decoder) services(blocks hcl.Blocks) []*api.Service {
	var out []*api.Service
	for _, b := range blocks {
		content := d.content(b.Body, serviceSchema)
		attrs := content.Attributes
		out = append(out, &api.Service{
			Name:        d.stringValue(attrs["name"]),
			Tags:        d.strings(attrs["tags"]),
			PortLabel:   d.stringValue(attrs["port"]), // a number converts to its digits,
			AddressMode: d.stringValue(attrs["address_mode"]),
			Address:     d.stringValue(attrs["address"]),
			Meta:        d.stringMap(content, "meta"),
			TaskName:    d.stringValue(attrs["task"]),
			Provider:    d.stringValue(attrs["provider"]),
		})
	}
	return out
}
