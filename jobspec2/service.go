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
	Blocks: []hcl.BlockHeaderSchema{{Type: "meta"}, {Type: "check"}},
}

var checkSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"}, {Name: "type"}, {Name: "path"}, {Name: "protocol"}, {Name: "port"},
		{Name: "address_mode"}, {Name: "interval"}, {Name: "timeout"}, {Name: "initial_status"},
		{Name: "tls_server_name"}, {Name: "tls_skip_verify"}, {Name: "method"}, {Name: "body"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "header"}},
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
			Checks:      d.checks(blocksOfType(content, "check")),
		})
	}
	return out
}

// checks decodes a service's check blocks.
func (d *decoder) checks(blocks hcl.Blocks) []api.ServiceCheck {
	var out []api.ServiceCheck
	for _, b := range blocks {
		content := d.content(b.Body, checkSchema)
		attrs := content.Attributes
		c := api.ServiceCheck{
			Name:          d.stringValue(attrs["name"]),
			Type:          d.stringValue(attrs["type"]),
			Path:          d.stringValue(attrs["path"]),
			Protocol:      d.stringValue(attrs["protocol"]),
			PortLabel:     d.stringValue(attrs["port"]),
			AddressMode:   d.stringValue(attrs["address_mode"]),
			Interval:      d.durationValue(attrs["interval"]),
			Timeout:       d.durationValue(attrs["timeout"]),
			InitialStatus: d.stringValue(attrs["initial_status"]),
			TLSServerName: d.stringValue(attrs["tls_server_name"]),
			Method:        d.stringValue(attrs["method"]),
			Body:          d.stringValue(attrs["body"]),
		}
		if skip := d.bool(attrs["tls_skip_verify"]); skip != nil {
			c.TLSSkipVerify = *skip
		}
		if h := d.single(blocksOfType(content, "header")); h != nil {
			c.Header = d.header(h)
		}
		out = append(out, c)
	}
	return out
}

// header reads a check's header block: each argument a header name, its
// value a list of strings.
func (d *decoder) header(block *hcl.Block) map[string][]string {
	attrs, diags := block.Body.JustAttributes()
	d.add(diags...)
	out := make(map[string][]string, len(attrs))
	for name, attr := range attrs {
		out[name] = d.strings(attr)
	}
	return out
}
