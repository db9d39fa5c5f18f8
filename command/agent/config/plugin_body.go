package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// pluginBody reads a plugin's config block into plain Go values. An
// attribute is its value; a nested block, in HCL syntax, is a map in a
// list under its type (`gc { image = true }` is {"gc": [{"image": true}]}),
// the shape a driver reads task config blocks in. In JSON, where blocks
// and objects look alike, an object is a map.
func pluginBody(body hcl.Body) (map[string]any, error) {
	syn, ok := body.(*hclsyntax.Body)
	if !ok {
		attrs, diags := body.JustAttributes()
		if diags.HasErrors() {
			return nil, fmt.Errorf("parse config: %w", diags)
		}
		return attributesToGo(attrs)
	}
	attrs := make(hcl.Attributes, len(syn.Attributes))
	for name, attr := range syn.Attributes {
		attrs[name] = attr.AsHCLAttribute()
	}
	out, err := attributesToGo(attrs)
	if err != nil {
		return nil, err
	}
	for _, block := range syn.Blocks {
		if len(block.Labels) > 0 {
			return nil, fmt.Errorf("%s: block %q takes no label", rangePos(block.DefRange()), block.Type)
		}
		if _, clash := syn.Attributes[block.Type]; clash {
			return nil, fmt.Errorf("%s: %q is set both as an attribute and as a block", rangePos(block.DefRange()), block.Type)
		}
		inner, err := pluginBody(block.Body)
		if err != nil {
			return nil, err
		}
		list, _ := out[block.Type].([]any)
		out[block.Type] = append(list, inner)
	}
	return out, nil
}

func attributesToGo(attrs hcl.Attributes) (map[string]any, error) {
	out := make(map[string]any, len(attrs))
	for key, attr := range attrs {
		v, err := attrToGo(attr)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	return out, nil
}
