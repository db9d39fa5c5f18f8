package jobspec2

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var restartSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "attempts"}, {Name: "interval"}, {Name: "delay"}, {Name: "mode"},
	},
}

func (d *decoder) restart(block *hcl.Block) *api.RestartPolicy {
	attrs := d.content(block.Body, restartSchema).Attributes
	return &api.RestartPolicy{
		Attempts: d.int(attrs["attempts"]),
		Interval: d.duration(attrs["interval"]),
		Delay:    d.duration(attrs["delay"]),
		Mode:     d.string(attrs["mode"]),
	}
}

var rescheduleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "attempts"}, {Name: "interval"}, {Name: "delay"},
		{Name: "delay_function"}, {Name: "max_delay"}, {Name: "unlimited"},
	},
}

func (d *decoder) reschedule(block *hcl.Block) *api.ReschedulePolicy {
	attrs := d.content(block.Body, rescheduleSchema).Attributes
	return &api.ReschedulePolicy{
		Attempts:      d.int(attrs["attempts"]),
		Interval:      d.duration(attrs["interval"]),
		Delay:         d.duration(attrs["delay"]),
		DelayFunction: d.string(attrs["delay_function"]),
		MaxDelay:      d.duration(attrs["max_delay"]),
		Unlimited:     d.bool(attrs["unlimited"]),
	}
}
