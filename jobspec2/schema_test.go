package jobspec2

import (
	"errors"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// TestSchema_CoversEveryBlockType holds that every nested block type a
// schema names has an entry of its own, so no block escapes Schema.
func TestSchema_CoversEveryBlockType(t *testing.T) {
	schema := Schema()
	for typ, bs := range schema {
		for _, nested := range bs.Blocks {
			_, ok := schema[nested]
			must.True(t, ok, must.Sprintf("block %q nests %q, which Schema does not describe", typ, nested))
		}
	}
	for _, typ := range freeformBlocks {
		_, decoded := decodedBlocks[typ]
		must.False(t, decoded, must.Sprintf("block %q is both freeform and decoded against a schema", typ))
	}
	must.Eq(t, []string{"name"}, schema["group"].Labels)
	must.True(t, schema["config"].Freeform)
	must.SliceContains(t, schema["group"].Attributes, "max_run_duration")
}

// TestSchema_RegistersEveryBodySchema holds that each package-level
// *hcl.BodySchema of the parser is one of decodedBlocks' values: a new
// block decoded against a new schema cannot be left out of Schema.
func TestSchema_RegistersEveryBodySchema(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	must.NoError(t, err)
	declared := map[string]bool{}
	registered := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		must.NoError(t, err)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if i < len(vs.Values) && isBodySchemaExpr(vs.Values[i]) {
						declared[id.Name] = true
					}
					if id.Name == "decodedBlocks" && i < len(vs.Values) {
						for _, elt := range vs.Values[i].(*ast.CompositeLit).Elts {
							if v, ok := elt.(*ast.KeyValueExpr).Value.(*ast.Ident); ok {
								registered[v.Name] = true
							}
						}
					}
				}
			}
		}
	}
	must.MapNotEmpty(t, declared)
	for name := range declared {
		must.True(t, registered[name], must.Sprintf("schema variable %s is not in decodedBlocks", name))
	}
}

// isBodySchemaExpr reports whether expr builds an *hcl.BodySchema: a
// literal &hcl.BodySchema{...} or a function literal returning one, called
// at once.
func isBodySchemaExpr(expr ast.Expr) bool {
	switch e := expr.(type) {
	case *ast.UnaryExpr:
		if lit, ok := e.X.(*ast.CompositeLit); ok {
			return isHCLBodySchemaType(lit.Type)
		}
	case *ast.CallExpr:
		if fn, ok := e.Fun.(*ast.FuncLit); ok && fn.Type.Results != nil && len(fn.Type.Results.List) == 1 {
			if star, ok := fn.Type.Results.List[0].Type.(*ast.StarExpr); ok {
				return isHCLBodySchemaType(star.X)
			}
		}
	}
	return false
}

func isHCLBodySchemaType(expr ast.Expr) bool {
	sel, ok := expr.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "hcl" && sel.Sel.Name == "BodySchema"
}

// TestSchema_AcceptedByParser puts every argument Schema lists into its
// block and holds that the parser does not call it unsupported, and that
// it does call an unknown argument unsupported except in freeform blocks.
func TestSchema_AcceptedByParser(t *testing.T) {
	schema := Schema()
	paths := blockPaths(schema)
	for typ, bs := range schema {
		if typ == FileLevel {
			continue
		}
		path, ok := paths[typ]
		must.True(t, ok, must.Sprintf("block %q cannot be reached from the top of a file", typ))
		for _, attr := range bs.Attributes {
			t.Run(typ+"/"+attr, func(t *testing.T) {
				src := nestedSource(schema, path, attr+` = "x"`)
				must.SliceNotContains(t, diagnosticSummaries(t, src), "Unsupported argument", must.Sprint(src))
			})
		}
		t.Run(typ+"/unknown", func(t *testing.T) {
			src := nestedSource(schema, path, `no_such_argument = "x"`)
			summaries := diagnosticSummaries(t, src)
			if bs.Freeform {
				must.SliceNotContains(t, summaries, "Unsupported argument", must.Sprint(src))
			} else {
				must.SliceContains(t, summaries, "Unsupported argument", must.Sprint(src))
			}
		})
	}
}

// blockPaths finds, for each block type, the block types that lead to it
// from the top of a file, shortest first.
func blockPaths(schema map[string]BlockSchema) map[string][]string {
	paths := map[string][]string{FileLevel: nil}
	queue := []string{FileLevel}
	for len(queue) > 0 {
		typ := queue[0]
		queue = queue[1:]
		for _, nested := range schema[typ].Blocks {
			if _, seen := paths[nested]; seen {
				continue
			}
			paths[nested] = append(slices.Clone(paths[typ]), nested)
			queue = append(queue, nested)
		}
	}
	return paths
}

// nestedSource writes the blocks of path, each inside the one before, with
// body in the innermost.
func nestedSource(schema map[string]BlockSchema, path []string, body string) string {
	var open, closing strings.Builder
	for _, typ := range path {
		open.WriteString(typ)
		for _, label := range schema[typ].Labels {
			fmt.Fprintf(&open, " %q", label)
		}
		open.WriteString(" {\n")
		closing.WriteString("}\n")
	}
	return open.String() + body + "\n" + closing.String()
}

// diagnosticSummaries parses src and returns the summaries of its error
// diagnostics.
func diagnosticSummaries(t *testing.T, src string) []string {
	t.Helper()
	_, err := ParseWithConfig(&ParseConfig{Path: "schema.hcl", Body: []byte(src)})
	if err == nil {
		return nil
	}
	var perr *Error
	must.True(t, errors.As(err, &perr), must.Sprintf("unexpected error: %v", err))
	var out []string
	for _, d := range perr.Diagnostics {
		out = append(out, d.Summary)
	}
	return out
}

func TestFunctions(t *testing.T) {
	fns := Functions()
	must.SliceContains(t, fns, "upper")
	must.SliceContains(t, fns, "jsonencode")
	must.SliceNotContains(t, fns, "file")
	must.True(t, slices.IsSorted(fns))

	_, err := ParseWithConfig(&ParseConfig{Path: "f.hcl", Body: []byte(`job "j" { name = file("x") }`)})
	must.Error(t, err)
}
