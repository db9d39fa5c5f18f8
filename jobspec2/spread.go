package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var spreadSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "attribute"}, {Name: "weight"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "target", LabelNames: []string{"value"}}},
}

var spreadTargetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "percent"}},
}

func (d *decoder) spreads(blocks hcl.Blocks) []*api.Spread {
	var out []*api.Spread
	for _, b := range blocks {
		out = append(out, d.spread(b))
	}
	return out
}

// spread decodes one spread block and its targets. Values that do not fit
// the API's types (a weight outside 1..100, a percent outside 0..100) are
// refused here, at their lines.
func (d *decoder) spread(block *hcl.Block) *api.Spread {
	content := d.content(block.Body, spreadSchema)
	attrs := content.Attributes
	s := &api.Spread{Attribute: d.stringValue(attrs["attribute"])}
	if attrs["attribute"] == nil {
		d.add(errorAt(block.DefRange, "Missing spread attribute",
			`A spread block needs attribute = "${...}", the node attribute to spread over.`))
	}
	if w := d.boundedInt(attrs["weight"], 1, 100, "Invalid spread weight", "A spread's weight is between 1 and 100"); w != nil {
		weight := int8(*w)
		s.Weight = &weight
	}
	for _, tb := range blocksOfType(content, "target") {
		targetAttrs := d.content(tb.Body, spreadTargetSchema).Attributes
		t := &api.SpreadTarget{Value: label(tb)}
		if p := d.boundedInt(targetAttrs["percent"], 0, 100, "Invalid spread target percent", "A target's percent is between 0 and 100"); p != nil {
			t.Percent = uint8(*p)
		}
		s.SpreadTarget = append(s.SpreadTarget, t)
	}
	return s
}

// boundedInt reads an optional whole number that must lie in lo..hi.
func (d *decoder) boundedInt(attr *hcl.Attribute, lo, hi int, summary, rule string) *int {
	if attr == nil {
		return nil
	}
	n := d.int(attr)
	if n == nil {
		return nil
	}
	if *n < lo || *n > hi {
		d.add(errorAt(attr.Expr.Range(), summary, fmt.Sprintf("%s; got %d.", rule, *n)))
		return nil
	}
	return n
}
