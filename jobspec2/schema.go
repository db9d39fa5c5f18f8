package jobspec2

import (
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// BlockSchema is what one block type of a jobspec accepts, as the parser
// decodes it.
type BlockSchema struct {
	// Labels names the block's labels, e.g. ["name"] for group "web" { }.
	Labels []string
	// Attributes are the argument names the block accepts, sorted.
	Attributes []string
	// Blocks are the nested block types the block accepts, sorted.
	Blocks []string
	// Freeform is set for blocks that take arguments of any name: a
	// driver's config, meta, env, an artifact's options and headers, the
	// variables and locals blocks. Attributes and Blocks are then empty.
	Freeform bool
}

// FileLevel is the key of Schema's entry for the top level of a jobspec
// file, which holds the job, variable, variables and locals blocks.
const FileLevel = ""

// decodedBlocks maps each block type the parser decodes against a schema
// to that schema. Every block type the schemas name is either here or in
// freeformBlocks; the package's tests hold that.
var decodedBlocks = map[string]*hcl.BodySchema{
	FileLevel:          rootSchema,
	"job":              jobSchema,
	"group":            groupSchema,
	"task":             taskSchema,
	"periodic":         periodicSchema,
	"parameterized":    parameterizedSchema,
	"dispatch_payload": dispatchPayloadSchema,
	"reschedule":       rescheduleSchema,
	"restart":          restartSchema,
	"update":           updateSchema,
	"ephemeral_disk":   ephemeralDiskSchema,
	"on_failure":       onFailureSchema,
	"rule":             onFailureRuleSchema,
	"network":          networkSchema,
	"port":             portSchema,
	"dns":              dnsSchema,
	"constraint":       constraintSchema,
	"affinity":         affinitySchema,
	"dynamic":          dynamicSchema,
	"spread":           spreadSchema,
	"target":           spreadTargetSchema,
	"resources":        resourcesSchema,
	"lifecycle":        lifecycleSchema,
	"logs":             logsSchema,
	"max_run_warning":  maxRunWarningSchema,
	"artifact":         artifactSchema,
	"identity":         identitySchema,
	"volume":           volumeSchema,
	"volume_mount":     volumeMountSchema,
	"mount_options":    mountOptionsSchema,
	"variable":         variableSchema,
	"template":         templateSchema,
	"change_script":    changeScriptSchema,
	"wait":             templateWaitSchema,
	"validation":       validationSchema,
	"service":          serviceSchema,
	"check":            checkSchema,
	"check_restart":    checkRestartSchema,
}

// freeformBlocks are the block types whose bodies the parser reads as
// arguments of any name (freeform, stringMap, locals, declareVariables);
// a dynamic block's content is the body of the blocks it generates.
var freeformBlocks = []string{"config", "content", "env", "header", "headers", "locals", "meta", "options", "variables"}

// Schema describes every block type of the jobspec language: its labels,
// the arguments and nested blocks it accepts. The top level of a file is
// under FileLevel. It is built from the schemas the parser decodes with,
// so that tools (the documentation's tests among them) can follow the
// parser. A block type that appears in several places (restart in a group
// and in a task) has one schema.
func Schema() map[string]BlockSchema {
	out := make(map[string]BlockSchema, len(decodedBlocks)+len(freeformBlocks))
	labels := map[string][]string{}
	for typ, s := range decodedBlocks {
		bs := BlockSchema{Attributes: []string{}, Blocks: []string{}}
		for _, a := range s.Attributes {
			bs.Attributes = append(bs.Attributes, a.Name)
		}
		for _, b := range s.Blocks {
			bs.Blocks = append(bs.Blocks, b.Type)
			if len(b.LabelNames) > 0 {
				labels[b.Type] = slices.Clone(b.LabelNames)
			}
		}
		slices.Sort(bs.Attributes)
		bs.Attributes = slices.Compact(bs.Attributes)
		slices.Sort(bs.Blocks)
		bs.Blocks = slices.Compact(bs.Blocks)
		out[typ] = bs
	}
	for _, typ := range freeformBlocks {
		out[typ] = BlockSchema{Attributes: []string{}, Blocks: []string{}, Freeform: true}
	}
	// A dynamic block may stand anywhere inside the job; it is expanded
	// before a body is decoded, so no schema names it. It is listed in
	// the job, the outermost block it may appear in.
	job := out["job"]
	job.Blocks = slices.Insert(job.Blocks, slices.Index(job.Blocks, "group"), dynamicBlockType)
	out["job"] = job
	labels[dynamicBlockType] = []string{"type"}
	for typ, l := range labels {
		bs := out[typ]
		bs.Labels = l
		out[typ] = bs
	}
	return out
}

// Functions lists, sorted, the functions every jobspec may call. The ones
// that read local files are left out: FileFunctions lists them.
func Functions() []string {
	fs := FileFunctions()
	var out []string
	for name := range functionTable(".", false, 0) {
		if !slices.Contains(fs, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// FileFunctions lists, sorted, the functions that exist only when
// ParseConfig.AllowFS is set: those of the local file system.
func FileFunctions() []string {
	return slices.Sorted(maps.Keys(fileFunctions(".", 0)))
}
