package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/api/unsupported"
)

var resourcesSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "cpu"}, {Name: "cores"}, {Name: "memory"}, {Name: "memory_max"}, {Name: "disk"},
	},
	// network is Nomad's deprecated task network, read as the group's is;
	// structs merges its ports into the group's (Task.MergeNetworks).
	Blocks: []hcl.BlockHeaderSchema{{Type: "network"}},
}

func (d *decoder) resources(block *hcl.Block) *api.Resources {
	content := d.content(block.Body, resourcesSchema)
	attrs := content.Attributes
	r := &api.Resources{
		CPU:         d.int(attrs["cpu"]),
		Cores:       d.int(attrs["cores"]),
		MemoryMB:    d.int(attrs["memory"]),
		MemoryMaxMB: d.int(attrs["memory_max"]),
		DiskMB:      d.int(attrs["disk"]),
	}
	if b := d.single(blocksOfType(content, "network")); b != nil {
		r.Networks = []*api.NetworkResource{d.network(b)}
	}
	return r
}

var lifecycleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "hook", Required: true}, {Name: "sidecar"}},
}

func (d *decoder) lifecycle(block *hcl.Block) *api.TaskLifecycle {
	attrs := d.content(block.Body, lifecycleSchema).Attributes
	l := &api.TaskLifecycle{Hook: d.stringValue(attrs["hook"])}
	if sidecar := d.bool(attrs["sidecar"]); sidecar != nil {
		l.Sidecar = *sidecar
	}
	return l
}

var logsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "max_files"}, {Name: "max_file_size"}, {Name: "disabled"}},
}

func (d *decoder) logs(block *hcl.Block) *api.LogConfig {
	attrs := d.content(block.Body, logsSchema).Attributes
	return &api.LogConfig{
		MaxFiles:      d.int(attrs["max_files"]),
		MaxFileSizeMB: d.int(attrs["max_file_size"]),
		Disabled:      d.bool(attrs["disabled"]),
	}
}

var artifactSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "source"}, {Name: "destination"}, {Name: "mode"},
		{Name: "insecure"}, {Name: "chown"}, {Name: "options"}, {Name: "headers"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "options"}, {Type: "headers"}},
}

func (d *decoder) artifact(block *hcl.Block) *api.TaskArtifact {
	content := d.content(block.Body, artifactSchema)
	attrs := content.Attributes
	a := &api.TaskArtifact{
		GetterSource:   d.string(attrs["source"]),
		RelativeDest:   d.string(attrs["destination"]),
		GetterMode:     d.string(attrs["mode"]),
		GetterInsecure: d.bool(attrs["insecure"]),
		GetterOptions:  d.stringMap(content, "options"),
		GetterHeaders:  d.stringMap(content, "headers"),
	}
	if chown := d.bool(attrs["chown"]); chown != nil {
		a.Chown = *chown
	}
	return a
}

var maxRunWarningSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "signal"}, {Name: "before"}},
}

func (d *decoder) maxRunWarning(block *hcl.Block) *api.MaxRunWarning {
	attrs := d.content(block.Body, maxRunWarningSchema).Attributes
	return &api.MaxRunWarning{
		Signal: d.stringValue(attrs["signal"]),
		Before: d.duration(attrs["before"]),
	}
}

var identitySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"}, {Name: "aud"}, {Name: "env"}, {Name: "file"}, {Name: "ttl"},
	},
}

// identity decodes a task's identity block. Drover signs the default
// identity only: a block with a name other than "default" is an error.
func (d *decoder) identity(block *hcl.Block) *api.WorkloadIdentity {
	attrs := d.content(block.Body, identitySchema).Attributes
	w := &api.WorkloadIdentity{
		Name:     d.stringValue(attrs["name"]),
		Audience: d.strings(attrs["aud"]),
		TTL:      d.durationValue(attrs["ttl"]),
	}
	if env := d.bool(attrs["env"]); env != nil {
		w.Env = *env
	}
	if file := d.bool(attrs["file"]); file != nil {
		w.File = *file
	}
	if w.Name != "" && w.Name != "default" {
		d.add(errorAt(attrs["name"].Expr.Range(), "Unsupported identity",
			fmt.Sprintf("Drover signs the default identity only (an identity block without a name, or named \"default\"), not %q; see %s.", w.Name, unsupported.DocsPage)))
	}
	return w
}
