package jobspec2

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Environment variable prefixes that assign input variables. DROVER_VAR_
// is applied after NOMAD_VAR_, so it wins when both name one variable.
var envVarPrefixes = []string{"NOMAD_VAR_", "DROVER_VAR_"}

// variablesContentName names VarContent in error positions.
const variablesContentName = "<variables>"

// assignVariables gathers the values cfg gives, lowest precedence first:
// environment, -var-file files in order, VarContent, then -var arguments.
// A later source overrides an earlier one.
func (d *decoder) assignVariables(decls *variableDecls, cfg *ParseConfig) map[string]cty.Value {
	given := map[string]cty.Value{}

	for _, prefix := range envVarPrefixes {
		for _, kv := range cfg.Envs {
			key, raw, found := strings.Cut(kv, "=")
			name, isVar := strings.CutPrefix(key, prefix)
			if !found || !isVar {
				continue
			}
			// Environments hold much else; undeclared names are not errors.
			if decl := decls.byName[name]; decl != nil {
				val, ok := d.rawVariable(decl, raw, "environment variable "+key)
				if !ok {
					val = cty.DynamicVal
				}
				given[name] = val
			}
		}
	}

	for _, path := range cfg.VarFiles {
		src, err := readSource(path, d.limits().MaxSize)
		if err != nil {
			d.add(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Failed to read variable file",
				Detail: fmt.Sprintf("read %s: %v", path, err)})
			continue
		}
		d.variableFile(decls, cfg.Strict, src, path, given)
	}
	if cfg.VarContent != "" {
		d.variableFile(decls, cfg.Strict, []byte(cfg.VarContent), variablesContentName, given)
	}

	for _, arg := range cfg.ArgVars {
		name, raw, found := strings.Cut(arg, "=")
		if !found {
			d.add(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid -var option",
				Detail: fmt.Sprintf("-var %q: expected name=value.", arg)})
			continue
		}
		decl := decls.byName[name]
		if decl == nil {
			if cfg.Strict {
				d.add(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Undefined -var variable",
					Detail: undeclaredDetail(name, "on the command line")})
			}
			continue
		}
		val, ok := d.rawVariable(decl, raw, fmt.Sprintf("-var %q", arg))
		if !ok {
			val = cty.DynamicVal // reported; keeps the default from hiding it
		}
		given[name] = val
	}
	return given
}

// variableFile reads name = value pairs from an HCL variable file.
func (d *decoder) variableFile(decls *variableDecls, strict bool, src []byte, filename string, given map[string]cty.Value) {
	if diags := d.limits().checkSource(src, filename, ConfigSource); diags.HasErrors() {
		d.add(diags...)
		return
	}
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	d.add(diags...)
	if diags.HasErrors() {
		return
	}
	attrs, diags := file.Body.JustAttributes()
	d.add(diags...)
	for _, attr := range sortedAttributes(attrs) {
		decl := decls.byName[attr.Name]
		if decl == nil {
			if strict {
				d.add(errorAt(attr.NameRange, "Undefined variable",
					undeclaredDetail(attr.Name, "in "+filename)))
			}
			continue
		}
		val, ok := d.eval(attr.Expr)
		if ok {
			val, ok = d.convertVariable(decl, val, attr.Expr.Range().Ptr(), filename)
		}
		if !ok {
			val = cty.DynamicVal
		}
		given[attr.Name] = val
	}
}

// rawVariable interprets text from the command line or the environment.
// Strings stay text; numbers and bools convert from their text; lists, maps
// and objects are read as HCL expressions, e.g. -var 'dcs=["a","b"]'.
func (d *decoder) rawVariable(decl *variableDecl, raw, source string) (cty.Value, bool) {
	ty := decl.constraint()
	structured := !ty.IsPrimitiveType() && ty != cty.DynamicPseudoType
	if ty == cty.DynamicPseudoType && decl.def != cty.NilVal && !decl.def.IsNull() && !decl.def.Type().IsPrimitiveType() {
		structured = true
	}
	if !structured {
		return d.convertVariable(decl, cty.StringVal(raw), nil, source)
	}
	filename := fmt.Sprintf("<value for var.%s>", decl.name)
	if diags := d.limits().checkSource([]byte(raw), filename, ExpressionSource); diags.HasErrors() {
		d.add(diags...)
		return cty.NilVal, false
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), filename, hcl.InitialPos)
	d.add(diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	val, diags := expr.Value(nil)
	d.add(diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if !d.budget.chargeValue(val) {
		d.budgetFailed(expr.Range())
		return cty.NilVal, false
	}
	return d.convertVariable(decl, val, expr.Range().Ptr(), source)
}

func (d *decoder) convertVariable(decl *variableDecl, val cty.Value, subject *hcl.Range, source string) (cty.Value, bool) {
	converted, err := convert.Convert(val, decl.constraint())
	if err != nil {
		d.add(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for variable",
			Detail:  fmt.Sprintf("The value for var.%s from %s is not valid: %s.", decl.name, source, err),
			Subject: subject})
		return cty.NilVal, false
	}
	return converted, true
}

func undeclaredDetail(name, where string) string {
	return fmt.Sprintf("A value for variable %q was given %s, but the jobspec declares no such variable. Declare it with: variable %q { type = string }",
		name, where, name)
}

// sortedAttributes returns attrs in source order, so diagnostics and
// evaluation order do not depend on map iteration.
func sortedAttributes(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Range.Start.Byte < out[j].Range.Start.Byte
	})
	return out
}
