package jobspec2

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/gocty"
)

// typed evaluates attr and converts it to ty. ok is false when attr is
// absent, null, or wrong (the problem is recorded).
func (d *decoder) typed(attr *hcl.Attribute, ty cty.Type) (cty.Value, bool) {
	if attr == nil {
		return cty.NilVal, false
	}
	val, ok := d.eval(attr.Expr)
	if !ok || val.IsNull() {
		return cty.NilVal, false
	}
	converted, err := convert.Convert(val, ty)
	if err != nil {
		d.add(errorAt(attr.Expr.Range(), "Incorrect attribute value type",
			fmt.Sprintf("Inappropriate value for attribute %q: %s.", attr.Name, err)))
		return cty.NilVal, false
	}
	return converted, true
}

func (d *decoder) string(attr *hcl.Attribute) *string {
	val, ok := d.typed(attr, cty.String)
	if !ok {
		return nil
	}
	s := val.AsString()
	return &s
}

func (d *decoder) stringValue(attr *hcl.Attribute) string {
	if s := d.string(attr); s != nil {
		return *s
	}
	return ""
}

func (d *decoder) bool(attr *hcl.Attribute) *bool {
	val, ok := d.typed(attr, cty.Bool)
	if !ok {
		return nil
	}
	b := val.True()
	return &b
}

func (d *decoder) int(attr *hcl.Attribute) *int {
	val, ok := d.typed(attr, cty.Number)
	if !ok {
		return nil
	}
	var n int
	if err := gocty.FromCtyValue(val, &n); err != nil {
		d.add(errorAt(attr.Expr.Range(), "Invalid number",
			fmt.Sprintf("Inappropriate value for attribute %q: %s.", attr.Name, err)))
		return nil
	}
	return &n
}

// duration reads a Go duration string such as "10s" or "1h30m". Negative
// durations parse; validation decides whether they make sense.
func (d *decoder) duration(attr *hcl.Attribute) *time.Duration {
	s := d.string(attr)
	if s == nil {
		return nil
	}
	dur, err := time.ParseDuration(*s)
	if err != nil {
		d.add(errorAt(attr.Expr.Range(), "Invalid duration",
			fmt.Sprintf("Attribute %q must be a duration such as \"30s\" or \"1h30m\": %q is not one.",
				attr.Name, *s)))
		return nil
	}
	return &dur
}

func (d *decoder) durationValue(attr *hcl.Attribute) time.Duration {
	if dur := d.duration(attr); dur != nil {
		return *dur
	}
	return 0
}

func (d *decoder) strings(attr *hcl.Attribute) []string {
	val, ok := d.typed(attr, cty.List(cty.String))
	if !ok {
		return nil
	}
	out := make([]string, 0, val.LengthInt())
	for it := val.ElementIterator(); it.Next(); {
		i, elem := it.Element()
		if elem.IsNull() {
			d.add(errorAt(attr.Expr.Range(), "Invalid list element",
				fmt.Sprintf("Element %s of attribute %q is null; a string is required.", i.AsBigFloat().Text('f', -1), attr.Name)))
			continue
		}
		out = append(out, elem.AsString())
	}
	return out
}

// stringMapValue converts an evaluated map or object to map[string]string.
func (d *decoder) stringMapValue(name string, rng hcl.Range, val cty.Value) map[string]string {
	converted, err := convert.Convert(val, cty.Map(cty.String))
	if err != nil {
		d.add(errorAt(rng, "Incorrect attribute value type",
			fmt.Sprintf("Inappropriate value for attribute %q: %s.", name, err)))
		return nil
	}
	if converted.IsNull() {
		return nil
	}
	out := make(map[string]string, converted.LengthInt())
	for key, elem := range converted.AsValueMap() {
		if elem.IsNull() {
			d.add(errorAt(rng, "Invalid map element",
				fmt.Sprintf("Element %q of attribute %q is null; a string is required.", key, name)))
			continue
		}
		out[key] = elem.AsString()
	}
	return out
}

// stringMap reads a map of strings given either as an argument
// (`meta = { a = "b" }`) or as a block of arguments (`meta { a = "b" }`).
// content must come from a schema that declares name as both.
func (d *decoder) stringMap(content *hcl.BodyContent, name string) map[string]string {
	attr := content.Attributes[name]
	block := d.single(blocksOfType(content, name))
	switch {
	case attr != nil && block != nil:
		d.add(errorAt(block.DefRange, fmt.Sprintf("Duplicate %s", name),
			fmt.Sprintf("%s is already set as an argument at %s; use either the argument or the block.",
				name, d.at(attr.NameRange))))
		return nil
	case attr != nil:
		val, ok := d.eval(attr.Expr)
		if !ok || val.IsNull() {
			return nil
		}
		return d.stringMapValue(name, attr.Expr.Range(), val)
	case block != nil:
		return d.attributeBlock(block)
	}
	return nil
}

// attributeBlock reads a block holding only name = value pairs of strings.
func (d *decoder) attributeBlock(block *hcl.Block) map[string]string {
	attrs, diags := block.Body.JustAttributes()
	d.add(diags...)
	out := make(map[string]string, len(attrs))
	for name, attr := range attrs {
		if s := d.string(attr); s != nil {
			out[name] = *s
		}
	}
	return out
}
