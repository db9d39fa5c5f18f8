package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// decoder evaluates attributes of one jobspec file and collects every
// diagnostic on the way, so a single parse reports all problems.
type decoder struct {
	refs   *refKeeper // nil: keep no runtime references (variable files)
	ctx    *hcl.EvalContext
	layout *layoutFix // set when line breaks were added to the jobspec
	budget *budget    // bounds the work of every evaluation; nil: none
	src    []byte     // the source parsed; nil: no dynamic blocks (variable files)

	// enclosing are, for each dynamic block generated inside another
	// one's content, the iterators of the dynamic blocks around it, from
	// the outermost: its content, parsed anew, sees them too.
	enclosing map[*hclsyntax.Block][]*iterSubst
	diags     hcl.Diagnostics

	// checkDrivers: see ParseConfig.CheckDrivers.
	checkDrivers bool
}

// budgetFailed reports, once, why evaluation stopped, at rng: where the
// work ran out.
func (d *decoder) budgetFailed(rng hcl.Range) {
	if diag := d.budget.diagnostic(rng); diag != nil {
		d.add(diag)
	}
}

// limits are those of the parse the decoder is part of.
func (d *decoder) limits() Limits {
	if d.budget == nil {
		return DefaultLimits()
	}
	return d.budget.limits
}

// at renders a range of the jobspec for a message, as the user wrote it.
func (d *decoder) at(r hcl.Range) string {
	return d.layout.rng(r).String()
}

func (d *decoder) add(diags ...*hcl.Diagnostic) {
	d.diags = append(d.diags, diags...)
}

// content applies schema to body, reporting unknown arguments and blocks;
// Nomad's that Drover lacks are named as such (explainNomadOnly).
func (d *decoder) content(body hcl.Body, schema *hcl.BodySchema) *hcl.BodyContent {
	if syn, ok := body.(*hclsyntax.Body); ok {
		d.expandDynamic(syn)
	}
	content, diags := body.Content(schema)
	explainNomadOnly(body, schema, diags)
	d.add(diags...)
	if content == nil {
		content = &hcl.BodyContent{Attributes: hcl.Attributes{}}
	}
	return content
}

// eval evaluates expr. ok is false when evaluation failed (the problem is
// recorded). The returned value is wholly known and unmarked.
func (d *decoder) eval(expr hcl.Expression) (cty.Value, bool) {
	return d.evalIn(d.ctx, expr)
}

// evalIn is eval in another context.
func (d *decoder) evalIn(ctx *hcl.EvalContext, expr hcl.Expression) (cty.Value, bool) {
	if d.budget.failed() {
		return cty.NilVal, false
	}
	if syn, isSyntax := expr.(hclsyntax.Expression); isSyntax && d.refs != nil {
		expr = d.refs.rewrite(syn, nil)
	}
	if !d.varsDeclared(expr) {
		return cty.NilVal, false
	}
	if syn, isSyntax := expr.(hclsyntax.Expression); isSyntax {
		expr = d.budget.wrap(syn)
	}
	val, diags := expr.Value(ctx)
	d.add(diags...)
	// What the caller does with the value (convert it to Go, to JSON)
	// walks all of it: that is charged too.
	if d.budget.failed() || !d.budget.chargeValue(val) {
		d.budgetFailed(expr.Range())
		return cty.NilVal, false
	}
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if !val.IsWhollyKnown() {
		// Unknown values come from locals that already failed; only
		// report them when nothing explains them.
		if !d.diags.HasErrors() {
			d.add(errorAt(expr.Range(), "Value not known",
				"This value cannot be determined when the jobspec is parsed."))
		}
		return cty.NilVal, false
	}
	val, _ = val.UnmarkDeep()
	return val, true
}

// varsDeclared reports references to undeclared input variables, which
// HCL alone would only call a missing object attribute.
func (d *decoder) varsDeclared(expr hcl.Expression) bool {
	vars, ok := d.ctx.Variables["var"]
	if !ok || !vars.Type().IsObjectType() {
		return true
	}
	declared := true
	for _, t := range expr.Variables() {
		if t.RootName() != "var" || len(t) < 2 {
			continue
		}
		step, isAttr := t[1].(hcl.TraverseAttr)
		if !isAttr || vars.Type().HasAttribute(step.Name) {
			continue
		}
		declared = false
		d.add(errorAt(t.SourceRange(), "Undeclared variable",
			fmt.Sprintf("No variable named %q is declared; declare it with a variable %q { } block.", step.Name, step.Name)))
	}
	return declared
}

// single returns the only block of blocks, reporting any extra ones.
func (d *decoder) single(blocks hcl.Blocks) *hcl.Block {
	if len(blocks) == 0 {
		return nil
	}
	for _, extra := range blocks[1:] {
		d.add(errorAt(extra.DefRange, fmt.Sprintf("Duplicate %s block", extra.Type),
			fmt.Sprintf("Only one %s block is allowed here; another was defined at %s.",
				extra.Type, d.at(blocks[0].DefRange))))
	}
	return blocks[0]
}

// blocksOfType returns the blocks of content with the given type.
func blocksOfType(content *hcl.BodyContent, typ string) hcl.Blocks {
	var out hcl.Blocks
	for _, b := range content.Blocks {
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}

// label returns the block's first label, or "" if it has none (hcl already
// reported the missing label).
func label(b *hcl.Block) string {
	if len(b.Labels) == 0 {
		return ""
	}
	return b.Labels[0]
}
