package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var jobSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"}, {Name: "region"}, {Name: "namespace"}, {Name: "type"},
		{Name: "priority"}, {Name: "all_at_once"}, {Name: "datacenters"},
		{Name: "node_pool"}, {Name: "meta"},
		// Drover's: the job-wide budget and the finish-by deadline.
		{Name: "max_run_duration"}, {Name: "deadline"},
		// Drover's: defaults of the groups' fields of those names.
		{Name: "max_pending_duration"}, {Name: "max_run_extension"},
		{Name: "ttl_after_finished"}, // Drover's (structs/gc.go)
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "group", LabelNames: []string{"name"}},
		{Type: "task", LabelNames: []string{"name"}},
		{Type: "constraint"}, {Type: "affinity"}, {Type: "spread"}, {Type: "periodic"}, {Type: "reschedule"}, {Type: "meta"},
		{Type: "parameterized"}, {Type: "update"},
	},
}

func (d *decoder) job(block *hcl.Block) *api.Job {
	id := label(block)
	content := d.content(block.Body, jobSchema)
	attrs := content.Attributes

	job := &api.Job{
		ID:          &id,
		Name:        d.string(attrs["name"]),
		Region:      d.string(attrs["region"]),
		Namespace:   d.string(attrs["namespace"]),
		Type:        d.string(attrs["type"]),
		Priority:    d.int(attrs["priority"]),
		AllAtOnce:   d.bool(attrs["all_at_once"]),
		Datacenters: d.strings(attrs["datacenters"]),
		NodePool:    d.string(attrs["node_pool"]),
		Meta:        d.stringMap(content, "meta"),
		Constraints: d.constraints(blocksOfType(content, "constraint")),
		Affinities:  d.affinities(blocksOfType(content, "affinity")),
		Spreads:     d.spreads(blocksOfType(content, "spread")),
		// Drover's.
		MaxRunDuration: d.duration(attrs["max_run_duration"]),
		Deadline:       d.jobDeadline(attrs["deadline"]),
	}
	job.TTLAfterFinished = d.duration(attrs["ttl_after_finished"])
	if job.Name == nil {
		job.Name = &id
	}
	job.MaxPendingDuration = d.duration(attrs["max_pending_duration"])
	job.MaxRunExtension = d.duration(attrs["max_run_extension"])
	if b := d.single(blocksOfType(content, "periodic")); b != nil {
		job.Periodic = d.periodic(b)
	}
	if b := d.single(blocksOfType(content, "parameterized")); b != nil {
		job.ParameterizedJob = d.parameterized(b)
	}
	if b := d.single(blocksOfType(content, "reschedule")); b != nil {
		job.Reschedule = d.reschedule(b)
	}
	if b := d.single(blocksOfType(content, "update")); b != nil {
		job.Update = d.update(b)
	}

	names := map[string]hcl.Range{}
	job.TaskGroups = d.loneTasks(blocksOfType(content, "task"), names)
	for _, gb := range blocksOfType(content, "group") {
		name := label(gb)
		if prev, dup := names[name]; dup {
			d.add(errorAt(gb.DefRange, "Duplicate group",
				fmt.Sprintf("Group %q was already defined at %s.", name, d.at(prev))))
			continue
		}
		names[name] = gb.DefRange
		job.TaskGroups = append(job.TaskGroups, d.group(gb))
	}
	return job
}

var periodicSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "cron"}, {Name: "crons"}, {Name: "prohibit_overlap"},
		{Name: "time_zone"}, {Name: "enabled"},
		{Name: "overlap"}, {Name: "keep_last"}, // Drover's (structs/gc.go)
	},
}

// periodicSpecCron is the only schedule kind: cron expressions.
const periodicSpecCron = "cron"

func (d *decoder) periodic(block *hcl.Block) *api.PeriodicConfig {
	content := d.content(block.Body, periodicSchema)
	attrs := content.Attributes
	specType := periodicSpecCron
	p := &api.PeriodicConfig{
		Spec:            d.string(attrs["cron"]),
		Specs:           d.strings(attrs["crons"]),
		SpecType:        &specType,
		ProhibitOverlap: d.bool(attrs["prohibit_overlap"]),
		TimeZone:        d.string(attrs["time_zone"]),
		Enabled:         d.bool(attrs["enabled"]),
		Overlap:         d.string(attrs["overlap"]),
		KeepLast:        d.int(attrs["keep_last"]),
	}
	if attrs["cron"] == nil && attrs["crons"] == nil {
		d.add(errorAt(block.DefRange, "Missing cron schedule",
			"A periodic block needs cron = \"...\" or crons = [...]."))
	}
	return p
}

// loneTasks makes a group of each task written directly in the job, as
// Nomad does: named after the task, holding it alone, before the groups
// the job declares. names records each group's definition.
func (d *decoder) loneTasks(blocks hcl.Blocks, names map[string]hcl.Range) []*api.TaskGroup {
	var groups []*api.TaskGroup
	for _, tb := range blocks {
		name := label(tb)
		if prev, dup := names[name]; dup {
			d.add(errorAt(tb.DefRange, "Duplicate group",
				fmt.Sprintf("Task %q outside any group makes a group of its name, already defined at %s.", name, d.at(prev))))
			continue
		}
		names[name] = tb.DefRange
		groups = append(groups, &api.TaskGroup{Name: &name, Tasks: []*api.Task{d.task(tb)}})
	}
	return groups
}
