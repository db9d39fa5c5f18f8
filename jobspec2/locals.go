package jobspec2

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// locals evaluates every locals block and returns the object local.*
// refers to. Locals may refer to variables and to each other in any order;
// they are evaluated once their dependencies are. A local that fails is
// unknown, which keeps its failure from repeating in every dependent.
func (d *decoder) locals(blocks hcl.Blocks) cty.Value {
	pending := map[string]*hcl.Attribute{}
	for _, block := range blocks {
		attrs, diags := block.Body.JustAttributes()
		d.add(diags...)
		for _, attr := range sortedAttributes(attrs) {
			if prev, dup := pending[attr.Name]; dup {
				d.add(errorAt(attr.NameRange, "Duplicate local value",
					fmt.Sprintf("Local %q was already defined at %s.", attr.Name, d.at(prev.NameRange))))
				continue
			}
			pending[attr.Name] = attr
		}
	}

	values := map[string]cty.Value{}
	for len(pending) > 0 {
		ready := readyLocals(pending)
		if len(ready) == 0 {
			d.reportLocalCycle(pending)
			for name := range pending {
				values[name] = cty.DynamicVal
			}
			break
		}
		for _, name := range ready {
			d.ctx.Variables["local"] = cty.ObjectVal(values)
			val, ok := d.eval(pending[name].Expr)
			if !ok {
				val = cty.DynamicVal
			}
			values[name] = val
			delete(pending, name)
		}
	}
	return cty.ObjectVal(values)
}

// readyLocals lists, sorted, the pending locals that refer to no other
// pending local.
func readyLocals(pending map[string]*hcl.Attribute) []string {
	var ready []string
	for name, attr := range pending {
		waiting := false
		for _, dep := range localRefs(attr.Expr) {
			if _, isPending := pending[dep]; isPending {
				waiting = true
				break
			}
		}
		if !waiting {
			ready = append(ready, name)
		}
	}
	slices.Sort(ready)
	return ready
}

// localRefs returns the names of the locals expr refers to.
func localRefs(expr hcl.Expression) []string {
	var names []string
	for _, t := range expr.Variables() {
		if t.RootName() != "local" || len(t) < 2 {
			continue
		}
		switch step := t[1].(type) {
		case hcl.TraverseAttr:
			names = append(names, step.Name)
		case hcl.TraverseIndex:
			if step.Key.Type() == cty.String && step.Key.IsKnown() && !step.Key.IsNull() {
				names = append(names, step.Key.AsString())
			}
		}
	}
	return names
}

func (d *decoder) reportLocalCycle(pending map[string]*hcl.Attribute) {
	names := make([]string, 0, len(pending))
	for name := range pending {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		d.add(errorAt(pending[name].NameRange, "Cycle in local values",
			fmt.Sprintf("Local %q cannot be evaluated: the locals %s refer to each other in a cycle.", name, strings.Join(names, ", "))))
	}
}
