package jobspec2

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var templateSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "source"}, {Name: "destination"}, {Name: "data"},
		{Name: "change_mode"}, {Name: "change_signal"}, {Name: "once"},
		{Name: "splay"}, {Name: "perms"}, {Name: "uid"}, {Name: "gid"},
		{Name: "left_delimiter"}, {Name: "right_delimiter"}, {Name: "env"},
		{Name: "error_on_missing_key"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "change_script"}, {Type: "wait"}},
}

// template decodes a task's template block.
func (d *decoder) template(block *hcl.Block) *api.Template {
	content := d.content(block.Body, templateSchema)
	attrs := content.Attributes
	t := &api.Template{
		SourcePath:    d.string(attrs["source"]),
		DestPath:      d.string(attrs["destination"]),
		EmbeddedTmpl:  d.string(attrs["data"]),
		ChangeMode:    d.string(attrs["change_mode"]),
		ChangeSignal:  d.string(attrs["change_signal"]),
		Once:          d.bool(attrs["once"]),
		Splay:         d.duration(attrs["splay"]),
		Perms:         d.string(attrs["perms"]),
		Uid:           d.int(attrs["uid"]),
		Gid:           d.int(attrs["gid"]),
		LeftDelim:     d.string(attrs["left_delimiter"]),
		RightDelim:    d.string(attrs["right_delimiter"]),
		Envvars:       d.bool(attrs["env"]),
		ErrMissingKey: d.bool(attrs["error_on_missing_key"]),
	}
	if b := d.single(blocksOfType(content, "change_script")); b != nil {
		t.ChangeScript = d.changeScript(b)
	}
	if b := d.single(blocksOfType(content, "wait")); b != nil {
		t.Wait = d.templateWait(b)
	}
	return t
}

var changeScriptSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "command", Required: true}, {Name: "args"}, {Name: "timeout"}, {Name: "fail_on_error"},
	},
}

func (d *decoder) changeScript(block *hcl.Block) *api.ChangeScript {
	attrs := d.content(block.Body, changeScriptSchema).Attributes
	return &api.ChangeScript{
		Command:     d.string(attrs["command"]),
		Args:        d.strings(attrs["args"]),
		Timeout:     d.duration(attrs["timeout"]),
		FailOnError: d.bool(attrs["fail_on_error"]),
	}
}

var templateWaitSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "min"}, {Name: "max"}},
}

func (d *decoder) templateWait(block *hcl.Block) *api.WaitConfig {
	attrs := d.content(block.Body, templateWaitSchema).Attributes
	return &api.WaitConfig{Min: d.duration(attrs["min"]), Max: d.duration(attrs["max"])}
}
