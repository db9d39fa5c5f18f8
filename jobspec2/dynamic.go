package jobspec2

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Nomad expands `dynamic` blocks anywhere in a job (HCL's dynblock
// extension):
//
//	dynamic "constraint" {
//	  for_each = var.racks
//	  iterator = rack              # defaults to the label
//	  labels   = [rack.key]        # for block types that take labels
//	  content {
//	    attribute = "${meta.rack}"
//	    value     = rack.value
//	  }
//	}
//
// writes one constraint block per element of var.racks. Drover expands them
// in the syntax tree itself, before a body is decoded: each generated block
// is the content block parsed anew from the source, at its own positions,
// with every reference to the iterator replaced by its value for that
// element. The result is ordinary syntax, so every later step (the
// references kept for the client, the evaluation budget, the errors at
// file:line) treats generated blocks as written ones.

// dynamicBlockType is the block type the extension reserves.
const dynamicBlockType = "dynamic"

var dynamicSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "for_each", Required: true}, {Name: "iterator"}, {Name: "labels"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "content"}},
}

// expandDynamic replaces each dynamic block of body, in place, with the
// blocks it generates, keeping the order they were written in.
func (d *decoder) expandDynamic(body *hclsyntax.Body) {
	if d.src == nil || !hasDynamic(body) {
		return
	}
	var out hclsyntax.Blocks
	for _, b := range body.Blocks {
		if b.Type != dynamicBlockType {
			out = append(out, b)
			continue
		}
		out = append(out, d.dynamicBlocks(b)...)
	}
	body.Blocks = out
}

func hasDynamic(body *hclsyntax.Body) bool {
	for _, b := range body.Blocks {
		if b.Type == dynamicBlockType {
			return true
		}
	}
	return false
}

// dynamicBlocks generates the blocks of one dynamic block.
func (d *decoder) dynamicBlocks(b *hclsyntax.Block) hclsyntax.Blocks {
	if len(b.Labels) != 1 {
		d.add(errorAt(b.DefRange(), "Invalid dynamic block",
			"A dynamic block has one label: the type of the blocks it generates, as in dynamic \"constraint\" { ... }."))
		return nil
	}
	content, diags := b.Body.Content(dynamicSchema)
	d.add(diags...)
	if diags.HasErrors() {
		return nil
	}
	inner := d.single(blocksOfType(content, "content"))
	if inner == nil {
		d.add(errorAt(b.DefRange(), "Missing content block",
			"A dynamic block needs a content { ... } block: the body of each block it generates."))
		return nil
	}
	iter, ok := d.iteratorName(b.Labels[0], content.Attributes["iterator"])
	if !ok {
		return nil
	}
	forEach, ok := d.eval(content.Attributes["for_each"].Expr)
	if !ok {
		return nil
	}
	if forEach.IsNull() || !forEach.CanIterateElements() {
		d.add(errorAt(content.Attributes["for_each"].Expr.Range(), "Invalid dynamic for_each value",
			fmt.Sprintf("for_each must be a map, object, list, set or tuple; got %s.", forEach.Type().FriendlyName())))
		return nil
	}

	syn := inner.Body.(*hclsyntax.Body)
	var out hclsyntax.Blocks
	for it := forEach.ElementIterator(); it.Next(); {
		key, value := it.Element()
		// Each element parses the content anew: charge what that costs.
		if !d.budget.charge(int64(syn.SrcRange.End.Byte-syn.SrcRange.Start.Byte) + iterationUnits) {
			d.budgetFailed(b.DefRange())
			return out
		}
		each := cty.ObjectVal(map[string]cty.Value{"key": key, "value": value})
		block, ok := d.generate(b, inner, content.Attributes["labels"], iter, each)
		if !ok {
			return out
		}
		out = append(out, block)
	}
	return out
}

// iteratorName is the name the content refers to each element by: the
// iterator argument, a bare name, or else the block type.
func (d *decoder) iteratorName(typ string, attr *hcl.Attribute) (string, bool) {
	if attr == nil {
		return typ, true
	}
	name := hcl.ExprAsKeyword(attr.Expr)
	if name == "" {
		d.add(errorAt(attr.Expr.Range(), "Invalid dynamic iterator",
			"iterator must be a bare name, such as iterator = rack."))
		return "", false
	}
	return name, true
}

// generate builds the block of one element: the content parsed anew with
// the iterator replaced by each, and the labels evaluated likewise.
func (d *decoder) generate(b *hclsyntax.Block, inner *hcl.Block, labelsAttr *hcl.Attribute, iter string, each cty.Value) (*hclsyntax.Block, bool) {
	body, ok := d.reparseBody(inner.Body.(*hclsyntax.Body))
	if !ok {
		return nil, false
	}
	sub := &iterSubst{name: iter, ctx: &hcl.EvalContext{Variables: map[string]cty.Value{iter: each}}}
	chain := append(visible(d.enclosing[b], iter), sub)
	for _, s := range chain {
		s.diags = nil
		s.body(body)
		d.add(s.diags...)
		if s.diags.HasErrors() {
			return nil, false
		}
	}
	// Dynamic blocks inside this content see every enclosing iterator,
	// the shadowed ones included: their own iterator names decide.
	d.recordEnclosing(body, slices.Concat(d.enclosing[b], []*iterSubst{sub}))
	labels, ranges, ok := d.dynamicLabels(labelsAttr, chain)
	if !ok {
		return nil, false
	}
	syn := inner.Body.(*hclsyntax.Body)
	return &hclsyntax.Block{
		Type:            b.Labels[0],
		Labels:          labels,
		Body:            body,
		TypeRange:       b.LabelRanges[0],
		LabelRanges:     ranges,
		OpenBraceRange:  hcl.Range{Filename: syn.SrcRange.Filename, Start: syn.SrcRange.Start, End: syn.SrcRange.Start},
		CloseBraceRange: hcl.Range{Filename: syn.SrcRange.Filename, Start: syn.SrcRange.End, End: syn.SrcRange.End},
	}, true
}

// visible are the enclosing iterators the content of a dynamic block with
// iterator name sees: all but those its own name shadows.
func visible(enclosing []*iterSubst, name string) []*iterSubst {
	var out []*iterSubst
	for _, s := range enclosing {
		if s.name != name {
			out = append(out, s)
		}
	}
	return out
}

// recordEnclosing notes, for every dynamic block in body (at any depth),
// the iterators around it, so that its own content, parsed anew from the
// source, gets their values too.
func (d *decoder) recordEnclosing(body *hclsyntax.Body, chain []*iterSubst) {
	for _, b := range body.Blocks {
		if b.Type == dynamicBlockType {
			if d.enclosing == nil {
				d.enclosing = map[*hclsyntax.Block][]*iterSubst{}
			}
			d.enclosing[b] = chain
		}
		d.recordEnclosing(b.Body, chain)
	}
}

// dynamicLabels evaluates the labels argument for one element, seeing the
// iterators of chain.
func (d *decoder) dynamicLabels(attr *hcl.Attribute, chain []*iterSubst) ([]string, []hcl.Range, bool) {
	if attr == nil {
		return nil, nil, true
	}
	expr, ok := d.reparseExpr(attr.Expr)
	if !ok {
		return nil, nil, false
	}
	for _, s := range chain {
		s.diags = nil
		s.expr(&expr, nil)
		d.add(s.diags...)
		if s.diags.HasErrors() {
			return nil, nil, false
		}
	}
	val, ok := d.eval(expr)
	if !ok {
		return nil, nil, false
	}
	if val.IsNull() || !(val.Type().IsListType() || val.Type().IsTupleType()) {
		d.add(errorAt(attr.Expr.Range(), "Invalid dynamic labels", "labels must be a list of strings."))
		return nil, nil, false
	}
	var labels []string
	var ranges []hcl.Range
	for it := val.ElementIterator(); it.Next(); {
		_, v := it.Element()
		if v.IsNull() || v.Type() != cty.String {
			d.add(errorAt(attr.Expr.Range(), "Invalid dynamic labels", "labels must be a list of strings."))
			return nil, nil, false
		}
		labels = append(labels, v.AsString())
		ranges = append(ranges, attr.Expr.Range())
	}
	return labels, ranges, true
}

// reparseBody parses the source of body again, at the same positions, for
// a tree of its own.
func (d *decoder) reparseBody(body *hclsyntax.Body) (*hclsyntax.Body, bool) {
	rng := body.SrcRange
	src, start, ok := d.between(rng)
	if !ok {
		return nil, false
	}
	// The range runs from { to }: parse what is between them.
	if len(src) >= 2 && src[0] == '{' && src[len(src)-1] == '}' {
		src = src[1 : len(src)-1]
		start.Byte++
		start.Column++
	}
	file, diags := hclsyntax.ParseConfig(src, rng.Filename, start)
	d.add(diags...)
	if diags.HasErrors() {
		return nil, false
	}
	return file.Body.(*hclsyntax.Body), true
}

func (d *decoder) reparseExpr(expr hcl.Expression) (hclsyntax.Expression, bool) {
	rng := expr.Range()
	src, start, ok := d.between(rng)
	if !ok {
		return nil, false
	}
	out, diags := hclsyntax.ParseExpression(src, rng.Filename, start)
	d.add(diags...)
	return out, !diags.HasErrors()
}

// between returns the source rng covers and where it starts.
func (d *decoder) between(rng hcl.Range) ([]byte, hcl.Pos, bool) {
	if rng.Start.Byte < 0 || rng.Start.Byte > rng.End.Byte || rng.End.Byte > len(d.src) {
		d.add(errorAt(rng, "Invalid dynamic block", "Its source could not be read back."))
		return nil, hcl.Pos{}, false
	}
	return d.src[rng.Start.Byte:rng.End.Byte], rng.Start, true
}

// iterSubst replaces references to a dynamic block's iterator with the
// values they name for one element.
type iterSubst struct {
	name  string
	ctx   *hcl.EvalContext
	diags hcl.Diagnostics
}

func (s *iterSubst) body(body *hclsyntax.Body) {
	for _, attr := range body.Attributes {
		s.expr(&attr.Expr, nil)
	}
	for _, b := range body.Blocks {
		if b.Type != dynamicBlockType || len(b.Labels) != 1 {
			s.body(b.Body)
			continue
		}
		// A nested dynamic block: its iterator argument is a name, not
		// a reference; its content sees ours unless it names its own
		// iterator as ours.
		for name, attr := range b.Body.Attributes {
			if name != "iterator" {
				s.expr(&attr.Expr, nil)
			}
		}
		if !s.shadowedBy(b) {
			for _, inner := range b.Body.Blocks {
				s.body(inner.Body)
			}
		}
	}
}

// shadowedBy reports whether a nested dynamic block names its iterator as
// ours.
func (s *iterSubst) shadowedBy(b *hclsyntax.Block) bool {
	if attr, ok := b.Body.Attributes["iterator"]; ok {
		return hcl.ExprAsKeyword(attr.Expr) == s.name
	}
	return b.Labels[0] == s.name
}

func (s *iterSubst) expr(slot *hclsyntax.Expression, bound map[string]bool) {
	if t, ok := (*slot).(*hclsyntax.ScopeTraversalExpr); ok && t.Traversal.RootName() == s.name && !bound[s.name] {
		val, diags := t.Traversal.TraverseAbs(s.ctx)
		s.diags = append(s.diags, diags...)
		if !diags.HasErrors() {
			*slot = &hclsyntax.LiteralValueExpr{Val: val, SrcRange: t.SrcRange}
		}
		return
	}
	eachChild(*slot, bound, func(child *hclsyntax.Expression, bound map[string]bool) {
		s.expr(child, bound)
	})
}
