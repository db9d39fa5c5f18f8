package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// variableDecl is one declared input variable.
type variableDecl struct {
	name        string
	typ         cty.Type  // declared type; cty.DynamicPseudoType when none
	def         cty.Value // cty.NilVal when there is no default
	declRange   hcl.Range
	validations []variableValidation
}

type variableValidation struct {
	condition hcl.Expression
	message   string
}

// constraint is the type values given for v are converted to: the declared
// type, else the type of a primitive default (so `default = 3` makes
// "-var n=5" a number), else any type.
func (v *variableDecl) constraint() cty.Type {
	if v.typ != cty.DynamicPseudoType {
		return v.typ
	}
	if v.def != cty.NilVal && !v.def.IsNull() && v.def.Type().IsPrimitiveType() {
		return v.def.Type()
	}
	return cty.DynamicPseudoType
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true},
		{Name: "error_message", Required: true},
	},
}

// collectVariables declares the jobspec's variables, assigns them values
// from cfg and returns the object that var.* refers to. A variable without
// a usable value is unknown in that object, so the job is still decoded and
// its other problems reported, while references to that variable stay quiet.
func collectVariables(blocks hcl.Blocks, cfg *ParseConfig, funcs map[string]function.Function, layout *layoutFix, b *budget) (cty.Value, hcl.Diagnostics) {
	d := &decoder{ctx: &hcl.EvalContext{Functions: funcs}, layout: layout, budget: b}
	decls := d.declareVariables(blocks)
	given := d.assignVariables(decls, cfg)

	values := make(map[string]cty.Value, len(decls.order))
	for _, name := range decls.order {
		decl := decls.byName[name]
		val, ok := given[name]
		switch {
		case ok:
		case decl.def != cty.NilVal:
			val = decl.def
		default:
			d.add(errorAt(decl.declRange, "Missing value for variable",
				fmt.Sprintf("Variable %q has no default and no value was given; set it with -var %s=..., a -var-file, or the NOMAD_VAR_%s environment variable.",
					name, name, name)))
			val = cty.DynamicVal
		}
		values[name] = val
	}
	vars := cty.ObjectVal(values)
	if !d.diags.HasErrors() {
		d.validateVariables(decls, vars)
	}
	return vars, d.diags
}

// variableDecls keeps declarations in source order for stable messages.
type variableDecls struct {
	byName map[string]*variableDecl
	order  []string
}

func (d *decoder) declareVariables(blocks hcl.Blocks) *variableDecls {
	decls := &variableDecls{byName: map[string]*variableDecl{}}
	declare := func(decl *variableDecl) {
		if !hclsyntax.ValidIdentifier(decl.name) {
			d.add(errorAt(decl.declRange, "Invalid variable name",
				fmt.Sprintf("%q is not a valid variable name: use letters, digits, underscores and dashes, starting with a letter.", decl.name)))
			return
		}
		if prev, dup := decls.byName[decl.name]; dup {
			d.add(errorAt(decl.declRange, "Duplicate variable declaration",
				fmt.Sprintf("Variable %q was already declared at %s.", decl.name, d.at(prev.declRange))))
			return
		}
		decls.byName[decl.name] = decl
		decls.order = append(decls.order, decl.name)
	}
	for _, block := range blocks {
		switch block.Type {
		case "variable":
			if len(block.Labels) == 1 {
				declare(d.variableBlock(block))
			}
		case "variables":
			attrs, diags := block.Body.JustAttributes()
			d.add(diags...)
			for _, attr := range sortedAttributes(attrs) {
				decl := &variableDecl{name: attr.Name, typ: cty.DynamicPseudoType, declRange: attr.NameRange}
				if val, ok := d.eval(attr.Expr); ok {
					decl.def = val
				}
				declare(decl)
			}
		}
	}
	return decls
}

func (d *decoder) variableBlock(block *hcl.Block) *variableDecl {
	decl := &variableDecl{name: block.Labels[0], typ: cty.DynamicPseudoType, declRange: block.DefRange}
	content := d.content(block.Body, variableSchema)
	if attr := content.Attributes["type"]; attr != nil {
		ty, diags := typeexpr.TypeConstraint(attr.Expr)
		d.add(diags...)
		if !diags.HasErrors() {
			decl.typ = ty
		}
	}
	if attr := content.Attributes["default"]; attr != nil {
		if val, ok := d.eval(attr.Expr); ok {
			if converted, err := convert.Convert(val, decl.typ); err != nil {
				d.add(errorAt(attr.Expr.Range(), "Invalid default value for variable",
					fmt.Sprintf("The default for variable %q does not fit its type: %s.", decl.name, err)))
			} else {
				decl.def = converted
			}
		}
	}
	d.stringValue(content.Attributes["description"]) // checked, not kept
	for _, vb := range content.Blocks {
		vc := d.content(vb.Body, validationSchema)
		cond, msg := vc.Attributes["condition"], vc.Attributes["error_message"]
		if cond != nil && msg != nil {
			decl.validations = append(decl.validations, variableValidation{
				condition: cond.Expr,
				message:   d.stringValue(msg),
			})
		}
	}
	return decl
}

// validateVariables runs every validation block against the final values.
func (d *decoder) validateVariables(decls *variableDecls, vars cty.Value) {
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": vars}, Functions: d.ctx.Functions}
	for _, name := range decls.order {
		for _, v := range decls.byName[name].validations {
			result, evaluated := d.evalIn(ctx, v.condition)
			if !evaluated {
				continue
			}
			ok, err := convert.Convert(result, cty.Bool)
			if err != nil || ok.IsNull() || !ok.IsKnown() {
				d.add(errorAt(v.condition.Range(), "Invalid validation condition",
					fmt.Sprintf("The condition for variable %q must be true or false.", name)))
				continue
			}
			if ok.False() {
				d.add(errorAt(v.condition.Range(), "Invalid value for variable",
					fmt.Sprintf("var.%s: %s", name, v.message)))
			}
		}
	}
}
