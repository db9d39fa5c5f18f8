package jobspec2

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// freeform decodes a block whose schema belongs to someone else, such as a
// task's driver config: arguments become values, and each nested block
// becomes a map appended to a list under the block's type, so repeated
// blocks (`mount { }` twice) and single ones look alike to the driver.
// Labels nest: `port "http" { to = 80 }` is {"port": [{"http": [{"to": 80}]}]}.
func (d *decoder) freeform(body hcl.Body) map[string]any {
	syn, ok := body.(*hclsyntax.Body)
	if !ok {
		d.add(errorAt(body.MissingItemRange(), "Unsupported syntax",
			"This block must be written in HCL native syntax."))
		return nil
	}
	d.expandDynamic(syn)
	out := make(map[string]any, len(syn.Attributes)+len(syn.Blocks))
	attrs := make(hcl.Attributes, len(syn.Attributes))
	for name, attr := range syn.Attributes {
		attrs[name] = attr.AsHCLAttribute()
	}
	for _, attr := range sortedAttributes(attrs) {
		val, ok := d.eval(attr.Expr)
		if !ok {
			continue
		}
		goVal, err := ctyToGo(val)
		if err != nil {
			d.add(errorAt(attr.Expr.Range(), "Unsupported value",
				fmt.Sprintf("Attribute %q: %s.", attr.Name, err)))
			continue
		}
		out[attr.Name] = goVal
	}
	for _, block := range syn.Blocks {
		if attr, clash := syn.Attributes[block.Type]; clash {
			d.add(errorAt(block.DefRange(), "Argument and block of one name",
				fmt.Sprintf("%q is already set as an argument at %s; use either the argument or blocks.",
					block.Type, d.at(attr.NameRange))))
			continue
		}
		var inner any = d.freeform(block.Body)
		for i := len(block.Labels) - 1; i >= 0; i-- {
			inner = map[string]any{block.Labels[i]: []any{inner}}
		}
		list, _ := out[block.Type].([]any)
		out[block.Type] = append(list, inner)
	}
	return out
}

// ctyToGo converts a known value to plain Go values that encode to JSON:
// string, bool, int (whole numbers) or float64, []any, map[string]any, nil.
func ctyToGo(val cty.Value) (any, error) {
	if val.IsNull() {
		return nil, nil
	}
	if !val.IsKnown() {
		return nil, errors.New("value is not known when the jobspec is parsed")
	}
	ty := val.Type()
	switch {
	case ty == cty.String:
		return val.AsString(), nil
	case ty == cty.Bool:
		return val.True(), nil
	case ty == cty.Number:
		return numberToGo(val.AsBigFloat())
	case ty.IsListType(), ty.IsSetType(), ty.IsTupleType():
		out := make([]any, 0, val.LengthInt())
		for it := val.ElementIterator(); it.Next(); {
			_, elem := it.Element()
			v, err := ctyToGo(elem)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case ty.IsMapType(), ty.IsObjectType():
		out := make(map[string]any, val.LengthInt())
		for it := val.ElementIterator(); it.Next(); {
			key, elem := it.Element()
			v, err := ctyToGo(elem)
			if err != nil {
				return nil, err
			}
			out[key.AsString()] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("values of type %s are not supported here", ty.FriendlyName())
}

func numberToGo(f *big.Float) (any, error) {
	if f.IsInt() {
		if i, acc := f.Int64(); acc == big.Exact && i >= math.MinInt && i <= math.MaxInt {
			return int(i), nil
		}
	}
	v, _ := f.Float64()
	if math.IsInf(v, 0) {
		return nil, fmt.Errorf("number %s is too large", f.Text('g', 10))
	}
	return v, nil
}
