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
	Blocks: []hcl.BlockHeaderSchema{{Type: "meta"}, {Type: "check"}, {Type: "check_restart"}},
}

var checkSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"}, {Name: "type"}, {Name: "path"}, {Name: "protocol"}, {Name: "port"},
		{Name: "address_mode"}, {Name: "interval"}, {Name: "timeout"}, {Name: "initial_status"},
		{Name: "tls_server_name"}, {Name: "tls_skip_verify"}, {Name: "method"}, {Name: "body"},
		{Name: "command"}, {Name: "args"}, {Name: "task"}, {Name: "success_before_passing"},
		{Name: "failures_before_critical"}, {Name: "failures_before_warning"}, {Name: "on_update"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "header"}, {Type: "check_restart"}},
}

var checkRestartSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "limit"}, {Name: "grace"}, {Name: "ignore_warnings"}},
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

			CheckRestart: d.checkRestart(d.single(blocksOfType(content, "check_restart"))),
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
			Command:       d.stringValue(attrs["command"]),
			Args:          d.strings(attrs["args"]),
			TaskName:      d.stringValue(attrs["task"]),
			OnUpdate:      d.stringValue(attrs["on_update"]),
			CheckRestart:  d.checkRestart(d.single(blocksOfType(content, "check_restart"))),

			SuccessBeforePassing:   d.intValue(attrs["success_before_passing"]),
			FailuresBeforeCritical: d.intValue(attrs["failures_before_critical"]),
			FailuresBeforeWarning:  d.intValue(attrs["failures_before_warning"]),
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

// checkRestart decodes a check_restart block (nil: none).
func (d *decoder) checkRestart(block *hcl.Block) *api.CheckRestart {
	if block == nil {
		return nil
	}
	attrs := d.content(block.Body, checkRestartSchema).Attributes
	return &api.CheckRestart{
		Limit:          d.intValue(attrs["limit"]),
		Grace:          d.duration(attrs["grace"]),
		IgnoreWarnings: d.boolValue(attrs["ignore_warnings"]),
	}
}

func (d *decoder) intValue(attr *hcl.Attribute) int {
	if n := d.int(attr); n != nil {
		return *n
	}
	return 0
}
