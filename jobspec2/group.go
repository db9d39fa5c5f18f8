package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var groupSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "count"}, {Name: "shutdown_delay"}, {Name: "max_run_duration"}, {Name: "max_run_outcome"}, {Name: "min_run_duration"}, {Name: "meta"},
		// Drover's: the pending timeout and how far a task may extend its
		// own deadline.
		{Name: "max_pending_duration"}, {Name: "max_run_extension"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "task", LabelNames: []string{"name"}},
		{Type: "constraint"}, {Type: "affinity"}, {Type: "spread"}, {Type: "restart"}, {Type: "reschedule"}, {Type: "meta"},
		{Type: "ephemeral_disk"}, {Type: "on_failure"}, {Type: "network"}, {Type: "volume", LabelNames: []string{"name"}}, {Type: "service"},
		{Type: "update"},
	},
}

var ephemeralDiskSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "size"}},
}

func (d *decoder) group(block *hcl.Block) *api.TaskGroup {
	name := label(block)
	content := d.content(block.Body, groupSchema)
	attrs := content.Attributes

	tg := &api.TaskGroup{
		Name:           &name,
		Count:          d.int(attrs["count"]),
		Constraints:    d.constraints(blocksOfType(content, "constraint")),
		Affinities:     d.affinities(blocksOfType(content, "affinity")),
		Spreads:        d.spreads(blocksOfType(content, "spread")),
		Volumes:        d.volumes(blocksOfType(content, "volume")),
		Meta:           d.stringMap(content, "meta"),
		ShutdownDelay:  d.duration(attrs["shutdown_delay"]),
		MaxRunDuration: d.duration(attrs["max_run_duration"]),
		MinRunDuration: d.duration(attrs["min_run_duration"]),
	}
	tg.MaxRunOutcome = d.string(attrs["max_run_outcome"])
	tg.MaxPendingDuration = d.duration(attrs["max_pending_duration"])
	tg.MaxRunExtension = d.duration(attrs["max_run_extension"])
	if b := d.single(blocksOfType(content, "restart")); b != nil {
		tg.RestartPolicy = d.restart(b)
	}
	if b := d.single(blocksOfType(content, "reschedule")); b != nil {
		tg.ReschedulePolicy = d.reschedule(b)
	}
	if b := d.single(blocksOfType(content, "update")); b != nil {
		tg.Update = d.update(b)
	}
	if b := d.single(blocksOfType(content, "on_failure")); b != nil {
		tg.OnFailure = d.onFailure(b)
	}
	if b := d.single(blocksOfType(content, "ephemeral_disk")); b != nil {
		attrs := d.content(b.Body, ephemeralDiskSchema).Attributes
		tg.EphemeralDisk = &api.EphemeralDisk{SizeMB: d.int(attrs["size"])}
	}
	if b := d.single(blocksOfType(content, "network")); b != nil {
		tg.Networks = []*api.NetworkResource{d.network(b)}
	}
	tg.Services = d.services(blocksOfType(content, "service"))

	names := map[string]hcl.Range{}
	for _, tb := range blocksOfType(content, "task") {
		taskName := label(tb)
		if prev, dup := names[taskName]; dup {
			d.add(errorAt(tb.DefRange, "Duplicate task",
				fmt.Sprintf("Task %q was already defined in group %q at %s.", taskName, name, d.at(prev))))
			continue
		}
		names[taskName] = tb.DefRange
		tg.Tasks = append(tg.Tasks, d.task(tb))
	}
	return tg
}
