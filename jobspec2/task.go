package jobspec2

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var taskSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "driver"}, {Name: "user"}, {Name: "leader"},
		{Name: "kill_timeout"}, {Name: "kill_signal"}, {Name: "shutdown_delay"},
		{Name: "env"}, {Name: "meta"}, {Name: "max_run_duration"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "config"}, {Type: "env"}, {Type: "meta"}, {Type: "resources"},
		{Type: "constraint"}, {Type: "affinity"}, {Type: "lifecycle"}, {Type: "restart"},
		{Type: "artifact"}, {Type: "logs"}, {Type: "max_run_warning"},
		{Type: "identity"}, {Type: "dispatch_payload"}, {Type: "template"}, {Type: "volume_mount"}, {Type: "service"},
	},
}

func (d *decoder) task(block *hcl.Block) *api.Task {
	content := d.content(block.Body, taskSchema)
	attrs := content.Attributes

	t := &api.Task{
		Name:          label(block),
		Driver:        d.stringValue(attrs["driver"]),
		User:          d.stringValue(attrs["user"]),
		Env:           d.stringMap(content, "env"),
		Meta:          d.stringMap(content, "meta"),
		Constraints:   d.constraints(blocksOfType(content, "constraint")),
		Affinities:    d.affinities(blocksOfType(content, "affinity")),
		KillTimeout:   d.duration(attrs["kill_timeout"]),
		KillSignal:    d.stringValue(attrs["kill_signal"]),
		ShutdownDelay: d.durationValue(attrs["shutdown_delay"]),
	}
	t.MaxRunDuration = d.duration(attrs["max_run_duration"])
	if leader := d.bool(attrs["leader"]); leader != nil {
		t.Leader = *leader
	}
	config := d.single(blocksOfType(content, "config"))
	if config != nil {
		t.Config = d.freeform(config.Body)
	}
	d.checkDriver(t.Name, attrs["driver"], t.Driver, config, t.Config)
	if b := d.single(blocksOfType(content, "resources")); b != nil {
		t.Resources = d.resources(b)
	}
	if b := d.single(blocksOfType(content, "lifecycle")); b != nil {
		t.Lifecycle = d.lifecycle(b)
	}
	if b := d.single(blocksOfType(content, "restart")); b != nil {
		t.RestartPolicy = d.restart(b)
	}
	if b := d.single(blocksOfType(content, "max_run_warning")); b != nil {
		t.MaxRunWarning = d.maxRunWarning(b)
	}
	if b := d.single(blocksOfType(content, "logs")); b != nil {
		t.LogConfig = d.logs(b)
	}
	if b := d.single(blocksOfType(content, "identity")); b != nil {
		t.Identity = d.identity(b)
	}
	if b := d.single(blocksOfType(content, "dispatch_payload")); b != nil {
		t.DispatchPayload = d.dispatchPayload(b)
	}
	t.VolumeMounts = d.volumeMounts(blocksOfType(content, "volume_mount"))
	for _, b := range blocksOfType(content, "artifact") {
		t.Artifacts = append(t.Artifacts, d.artifact(b))
	}
	for _, b := range blocksOfType(content, "template") {
		t.Templates = append(t.Templates, d.template(b))
	}
	t.Services = d.services(blocksOfType(content, "service"))
	return t
}
