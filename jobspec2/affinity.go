package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

// maxAffinityWeight bounds an affinity's weight both ways, as in Nomad.
const maxAffinityWeight = 100

var affinitySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "attribute"}, {Name: "operator"}, {Name: "value"}, {Name: "weight"},
}}

func (d *decoder) affinities(blocks hcl.Blocks) []*api.Affinity {
	var out []*api.Affinity
	for _, b := range blocks {
		out = append(out, d.affinity(b))
	}
	return out
}

// affinity decodes one affinity block. The operator defaults to "=" and
// the weight to Nomad's 50; a weight outside -100..100, or zero, is
// refused here, at its line, since the API's weight is an int8.
func (d *decoder) affinity(block *hcl.Block) *api.Affinity {
	attrs := d.content(block.Body, affinitySchema).Attributes
	a := &api.Affinity{
		LTarget: d.stringValue(attrs["attribute"]),
		Operand: d.stringValue(attrs["operator"]),
		RTarget: d.stringValue(attrs["value"]),
	}
	if a.Operand == "" {
		a.Operand = operandEqual
	}
	if attr := attrs["weight"]; attr != nil {
		if w := d.int(attr); w != nil {
			if *w == 0 || *w > maxAffinityWeight || *w < -maxAffinityWeight {
				d.add(errorAt(attr.Expr.Range(), "Invalid affinity weight",
					fmt.Sprintf("An affinity's weight is between -%d (avoid) and %d (prefer) and not zero; got %d.",
						maxAffinityWeight, maxAffinityWeight, *w)))
			} else {
				weight := int8(*w)
				a.Weight = &weight
			}
		}
	}
	if attrs["attribute"] == nil {
		d.add(errorAt(block.DefRange, "Missing affinity attribute",
			`An affinity block needs attribute = "${...}", the node attribute it compares.`))
	}
	if attrs["value"] == nil {
		d.add(errorAt(block.DefRange, "Missing affinity value",
			"An affinity block needs value = \"...\", what the attribute is compared with."))
	}
	return a
}
