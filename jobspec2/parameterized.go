package jobspec2

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

// The job's parameterized block and a task's dispatch_payload block.
// What they accept is checked on the server (structs), as everything
// else a job says.

var parameterizedSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "payload"}, {Name: "meta_required"}, {Name: "meta_optional"},
		// Drover's: the longest max_run_duration a dispatch may ask.
		{Name: "max_run_duration_max"},
	},
}

func (d *decoder) parameterized(block *hcl.Block) *api.ParameterizedJobConfig {
	content := d.content(block.Body, parameterizedSchema)
	attrs := content.Attributes
	return &api.ParameterizedJobConfig{
		Payload:           d.stringValue(attrs["payload"]),
		MetaRequired:      d.strings(attrs["meta_required"]),
		MetaOptional:      d.strings(attrs["meta_optional"]),
		MaxRunDurationMax: d.duration(attrs["max_run_duration_max"]),
	}
}

var dispatchPayloadSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "file"}},
}

func (d *decoder) dispatchPayload(block *hcl.Block) *api.DispatchPayloadConfig {
	content := d.content(block.Body, dispatchPayloadSchema)
	return &api.DispatchPayloadConfig{File: d.stringValue(content.Attributes["file"])}
}
