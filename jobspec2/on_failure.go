package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/gocty"

	"github.com/drover-io/drover/api"
)

// A group's on_failure block is Drover's: rule blocks, in order, each
// matching on exit codes, signals or reasons and naming an action.
//
//	on_failure {
//	  rule {
//	    reasons = ["timeout"]
//	    action  = "requeue"
//	  }
//	}

var onFailureSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "rule"}},
}

var onFailureRuleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "exit_codes"}, {Name: "signals"}, {Name: "reasons"}, {Name: "action"},
	},
}

func (d *decoder) onFailure(block *hcl.Block) []*api.OnFailureRule {
	content := d.content(block.Body, onFailureSchema)
	rules := make([]*api.OnFailureRule, 0, len(content.Blocks))
	for _, b := range blocksOfType(content, "rule") {
		attrs := d.content(b.Body, onFailureRuleSchema).Attributes
		rules = append(rules, &api.OnFailureRule{
			ExitCodes: d.ints(attrs["exit_codes"]),
			Signals:   d.strings(attrs["signals"]),
			Reasons:   d.strings(attrs["reasons"]),
			Action:    d.stringValue(attrs["action"]),
		})
	}
	return rules
}

// ints reads a list of whole numbers.
func (d *decoder) ints(attr *hcl.Attribute) []int {
	val, ok := d.typed(attr, cty.List(cty.Number))
	if !ok {
		return nil
	}
	out := make([]int, 0, val.LengthInt())
	for it := val.ElementIterator(); it.Next(); {
		i, elem := it.Element()
		var n int
		if elem.IsNull() || gocty.FromCtyValue(elem, &n) != nil {
			d.add(errorAt(attr.Expr.Range(), "Invalid list element",
				fmt.Sprintf("Element %s of attribute %q must be a whole number.", i.AsBigFloat().Text('f', -1), attr.Name)))
			continue
		}
		out = append(out, n)
	}
	return out
}
