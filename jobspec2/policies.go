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

var updateSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "max_parallel"}, {Name: "health_check"}, {Name: "min_healthy_time"},
		{Name: "healthy_deadline"}, {Name: "progress_deadline"}, {Name: "auto_revert"},
		{Name: "auto_promote"}, {Name: "canary"}, {Name: "stagger"},
	},
}

func (d *decoder) update(block *hcl.Block) *api.UpdateStrategy {
	attrs := d.content(block.Body, updateSchema).Attributes
	return &api.UpdateStrategy{
		MaxParallel:      d.int(attrs["max_parallel"]),
		HealthCheck:      d.string(attrs["health_check"]),
		MinHealthyTime:   d.duration(attrs["min_healthy_time"]),
		HealthyDeadline:  d.duration(attrs["healthy_deadline"]),
		ProgressDeadline: d.duration(attrs["progress_deadline"]),
		AutoRevert:       d.bool(attrs["auto_revert"]),
		AutoPromote:      d.bool(attrs["auto_promote"]),
		Canary:           d.int(attrs["canary"]),
		Stagger:          d.duration(attrs["stagger"]),
	}
}
