package jobspec2

import (
	"fmt"
	"maps"
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

	// Each local waits for the locals it refers to; the ones no longer
	// waiting are evaluated in rounds, each in name order. Every step is
	// done once per local or per reference, so that many locals cost
	// linear time, and each local sees only the locals it refers to.
	deps := make(map[string][]string, len(pending))
	dependents := map[string][]string{}
	waiting := make(map[string]int, len(pending))
	// Locals used whole (keys(local), local[var.k]) see every local
	// evaluated before them, as they would have in any order.
	whole := map[string]bool{}
	for name, attr := range pending {
		refs, all := localRefs(attr.Expr)
		whole[name] = all
		for _, dep := range refs {
			if _, isLocal := pending[dep]; !isLocal || slices.Contains(deps[name], dep) {
				continue
			}
			deps[name] = append(deps[name], dep)
			dependents[dep] = append(dependents[dep], name)
			waiting[name]++
		}
	}
	var ready []string
	for name := range pending {
		if waiting[name] == 0 {
			ready = append(ready, name)
		}
	}
	values := make(map[string]cty.Value, len(pending))
	for len(ready) > 0 {
		slices.Sort(ready)
		var next []string
		for _, name := range ready {
			visible := make(map[string]cty.Value, len(deps[name]))
			if whole[name] {
				maps.Copy(visible, values)
			}
			for _, dep := range deps[name] {
				visible[dep] = values[dep]
			}
			d.ctx.Variables["local"] = cty.ObjectVal(visible)
			val, ok := d.eval(pending[name].Expr)
			if !ok {
				val = cty.DynamicVal
			}
			values[name] = val
			delete(pending, name)
			for _, dependent := range dependents[name] {
				if waiting[dependent]--; waiting[dependent] == 0 {
					next = append(next, dependent)
				}
			}
		}
		ready = next
	}
	if len(pending) > 0 {
		d.reportLocalCycle(pending)
		for name := range pending {
			values[name] = cty.DynamicVal
		}
	}
	return cty.ObjectVal(values)
}

// localRefs returns the names of the locals expr refers to by name, and
// whether it also uses local as a whole or by a computed key.
func localRefs(expr hcl.Expression) (names []string, whole bool) {
	for _, t := range expr.Variables() {
		if t.RootName() != "local" {
			continue
		}
		if len(t) < 2 {
			whole = true
			continue
		}
		switch step := t[1].(type) {
		case hcl.TraverseAttr:
			names = append(names, step.Name)
		case hcl.TraverseIndex:
			if step.Key.Type() == cty.String && step.Key.IsKnown() && !step.Key.IsNull() {
				names = append(names, step.Key.AsString())
			}
		default:
			whole = true
		}
	}
	return names, whole
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
