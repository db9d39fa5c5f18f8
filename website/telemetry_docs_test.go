package website

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// telemetryPage is the metrics reference.
var telemetryPage = filepath.Join("operations", "telemetry.md")

const goMetricsPath = "github.com/hashicorp/go-metrics"

// defaultServicePrefix starts every metric name unless telemetry's
// service_prefix changes it; the reference writes names with it.
const defaultServicePrefix = "nomad"

// emitters are go-metrics' functions and methods that emit a metric; their
// first argument is the key.
var emitters = map[string]bool{
	"SetGauge": true, "SetGaugeWithLabels": true,
	"SetPrecisionGauge": true, "SetPrecisionGaugeWithLabels": true,
	"IncrCounter": true, "IncrCounterWithLabels": true,
	"AddSample": true, "AddSampleWithLabels": true,
	"MeasureSince": true, "MeasureSinceWithLabels": true,
	"EmitKey": true,
}

// TestTelemetryReference holds the metrics reference to the metrics the
// code emits. The rule, applied to every non-test Go file that imports
// go-metrics:
//
//   - a call of an emitter (SetGauge, IncrCounterWithLabels, MeasureSince,
//     ...) emits its first argument: a []string literal, or a name bound to
//     one (a package-level variable, or a variable of the calling
//     function). A function that receives the key as a parameter only
//     forwards it (a sink, a wrapper) and is skipped; any other key the
//     test cannot read fails it, so that no metric goes unchecked;
//   - a package-level []string literal whose name contains "metric" is a
//     key too, wherever it is used;
//   - key elements are string literals or string constants; anything else
//     (queue + "_ready", a job type) is a placeholder, which the reference
//     writes as <name> (nomad.broker.<scheduler>_ready);
//   - every Label{Name: "..."} literal names a label.
//
// Every key, as "nomad." followed by its elements joined with ".", must
// appear as a code span in operations/telemetry.md, and every label name
// too. The other way, every metric in the reference's tables must be
// emitted, by the code or, for nomad.runtime.*, by go-metrics'
// EmitRuntimeStats, which the agent calls.
func TestTelemetryReference(t *testing.T) {
	found := scanMetrics(t, repoRoot)
	must.MapNotEmpty(t, found.keys, must.Sprint("no metric emissions found: the scan is broken"))

	page := readDoc(t, telemetryPage)
	spans := map[string]bool{}
	for span := range codeSpans(page) {
		spans[placeholderPattern.ReplaceAllString(span, "*")] = true
	}
	for key, where := range found.keys {
		name := defaultServicePrefix + "." + key
		must.True(t, spans[name], must.Sprintf("metric %s (emitted at %s) is not in %s", name, where, telemetryPage))
	}
	for label, where := range found.labels {
		must.True(t, spans[label], must.Sprintf("label %q (at %s) is not in %s", label, where, telemetryPage))
	}

	for _, name := range documentedMetrics(page) {
		key := strings.TrimPrefix(placeholderPattern.ReplaceAllString(name, "*"), defaultServicePrefix+".")
		if strings.HasPrefix(key, "runtime.") && found.runtimeStats {
			continue
		}
		_, emitted := found.keys[key]
		must.True(t, emitted, must.Sprintf("%s documents %s, which the code does not emit", telemetryPage, name))
	}
}

var placeholderPattern = regexp.MustCompile(`<[^<>]+>`)

var metricRow = regexp.MustCompile("^\\|\\s*`(" + defaultServicePrefix + "\\.[^`]+)`")

// documentedMetrics returns the metric names in the first column of the
// reference's tables.
func documentedMetrics(page string) []string {
	var out []string
	for line := range strings.Lines(prose(page)) {
		if m := metricRow.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// metricScan is what scanMetrics found: each key and label with the
// position of one place that emits or names it.
type metricScan struct {
	keys         map[string]string
	labels       map[string]string
	runtimeStats bool
}

// scanMetrics applies the rule of TestTelemetryReference to the Go
// packages under root.
func scanMetrics(t *testing.T, root string) *metricScan {
	t.Helper()
	out := &metricScan{keys: map[string]string{}, labels: map[string]string{}}
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "website", "bin", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".go" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], f)
		return nil
	})
	must.NoError(t, err)
	for _, files := range pkgs {
		scanPackage(t, fset, files, out)
	}
	return out
}

// scanPackage scans the files of one package that import go-metrics; the
// package's constants and variables resolve names in all of them.
func scanPackage(t *testing.T, fset *token.FileSet, files []*ast.File, out *metricScan) {
	consts, vars := packageNames(files)
	for _, f := range files {
		alias, ok := goMetricsAlias(f)
		if !ok {
			continue
		}
		s := &keyScanner{t: t, fset: fset, consts: consts, vars: vars, out: out}
		for name, lit := range vars {
			if strings.Contains(strings.ToLower(name), "metric") && declaredIn(f, lit) {
				s.record(lit, nil)
			}
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				s.scanFunc(fn.Type, fn.Body)
			}
		}
		s.scanLabels(f, alias)
	}
}

func declaredIn(f *ast.File, n ast.Node) bool {
	return n.Pos() >= f.Pos() && n.End() <= f.End()
}

// goMetricsAlias is the name a file imports go-metrics under.
func goMetricsAlias(f *ast.File) (string, bool) {
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == goMetricsPath {
			if imp.Name != nil {
				return imp.Name.Name, true
			}
			return "metrics", true
		}
	}
	return "", false
}

// stringSliceLit returns expr as a []string composite literal.
func stringSliceLit(expr ast.Expr) (*ast.CompositeLit, bool) {
	lit, ok := expr.(*ast.CompositeLit)
	if !ok {
		return nil, false
	}
	arr, ok := lit.Type.(*ast.ArrayType)
	if !ok || arr.Len != nil {
		return nil, false
	}
	elt, ok := arr.Elt.(*ast.Ident)
	return lit, ok && elt.Name == "string"
}

type keyScanner struct {
	t      *testing.T
	fset   *token.FileSet
	consts map[string]string
	vars   map[string]*ast.CompositeLit
	out    *metricScan
}

// scanFunc scans one function body, and the function literals in it with
// their own parameters.
func (s *keyScanner) scanFunc(typ *ast.FuncType, body *ast.BlockStmt) {
	params := map[string]bool{}
	for _, field := range typ.Params.List {
		for _, name := range field.Names {
			params[name.Name] = true
		}
	}
	locals := localSliceLits(body)
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			s.scanFunc(n.Type, n.Body)
			return false
		case *ast.CallExpr:
			s.scanCall(n, params, locals)
		}
		return true
	})
}

// localSliceLits returns the variables of body bound to []string literals.
func localSliceLits(body *ast.BlockStmt) map[string]*ast.CompositeLit {
	out := map[string]*ast.CompositeLit{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, rhs := range n.Rhs {
				if i >= len(n.Lhs) {
					break
				}
				if id, ok := n.Lhs[i].(*ast.Ident); ok {
					if lit, ok := stringSliceLit(rhs); ok {
						out[id.Name] = lit
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if i < len(n.Values) {
					if lit, ok := stringSliceLit(n.Values[i]); ok {
						out[id.Name] = lit
					}
				}
			}
		}
		return true
	})
	return out
}

func (s *keyScanner) scanCall(call *ast.CallExpr, params map[string]bool, locals map[string]*ast.CompositeLit) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !emitters[sel.Sel.Name] || len(call.Args) == 0 {
		return
	}
	where := s.fset.Position(call.Pos())
	switch key := call.Args[0].(type) {
	case *ast.CompositeLit:
		if lit, ok := stringSliceLit(key); ok {
			s.record(lit, &where)
			return
		}
	case *ast.Ident:
		if params[key.Name] {
			return // a forwarder: the key comes from its caller
		}
		if lit, ok := locals[key.Name]; ok {
			s.record(lit, &where)
			return
		}
		if lit, ok := s.vars[key.Name]; ok {
			s.record(lit, &where)
			return
		}
	}
	s.t.Errorf("%s: cannot read the key of this %s call; write it as a []string literal or a name bound to one", where, sel.Sel.Name)
}

// record notes the key lit spells.
func (s *keyScanner) record(lit *ast.CompositeLit, where *token.Position) {
	if where == nil {
		p := s.fset.Position(lit.Pos())
		where = &p
	}
	elems := make([]string, 0, len(lit.Elts))
	for _, e := range lit.Elts {
		elems = append(elems, s.render(e))
	}
	key := strings.Join(elems, ".")
	if _, seen := s.out.keys[key]; !seen {
		s.out.keys[key] = where.String()
	}
}

// render spells one key element: literals and constants as they are,
// anything else as the placeholder "*".
func (s *keyScanner) render(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		if v, ok := stringLit(e); ok {
			return v
		}
	case *ast.Ident:
		if v, ok := s.consts[e.Name]; ok {
			return v
		}
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return s.render(e.X) + s.render(e.Y)
		}
	case *ast.ParenExpr:
		return s.render(e.X)
	}
	return "*"
}

// scanLabels records the names of the go-metrics labels f builds:
// alias.Label{...} literals, and the elements of []alias.Label literals.
func (s *keyScanner) scanLabels(f *ast.File, alias string) {
	isLabel := func(expr ast.Expr) bool {
		sel, ok := expr.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == alias && sel.Sel.Name == "Label"
	}
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		switch {
		case isLabel(lit.Type):
			s.recordLabel(lit)
		case lit.Type != nil:
			if arr, ok := lit.Type.(*ast.ArrayType); ok && isLabel(arr.Elt) {
				for _, e := range lit.Elts {
					if el, ok := e.(*ast.CompositeLit); ok && el.Type == nil {
						s.recordLabel(el)
					}
				}
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "EmitRuntimeStats" {
			s.out.runtimeStats = true
		}
		return true
	})
}

func (s *keyScanner) recordLabel(lit *ast.CompositeLit) {
	where := s.fset.Position(lit.Pos())
	var name ast.Expr
	for i, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
				name = kv.Value
			}
		} else if i == 0 {
			name = e
		}
	}
	if name == nil {
		return
	}
	v := s.render(name)
	if v == "*" {
		s.t.Errorf("%s: cannot read this label's name; use a string literal or constant", where)
		return
	}
	if _, seen := s.out.labels[v]; !seen {
		s.out.labels[v] = where.String()
	}
}

func TestScanMetrics_Rule(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import gm "github.com/hashicorp/go-metrics"

const sub = "allocs"

var metricRunning = []string{"client", sub, "running"}

var unrelated = []string{"not", "a", "metric"}

func emit(queue string, jobType string) {
	gm.SetGauge([]string{"broker", queue + "_ready"}, 1)
	gm.MeasureSince([]string{"worker", "invoke_scheduler", jobType}, start)
	key := []string{"plan", "apply"}
	gm.IncrCounterWithLabels(key, 1, []gm.Label{{Name: "job", Value: "j"}})
	gm.AddSampleWithLabels(metricRunning, 1, []gm.Label{gm.Label{Name: "node_id"}})
}

func forward(key []string) { gm.SetGauge(key, 1) }
`
	must.NoError(t, writeFile(filepath.Join(dir, "x.go"), src))
	got := scanMetrics(t, dir)
	want := []string{"broker.*_ready", "client.allocs.running", "plan.apply", "worker.invoke_scheduler.*"}
	keys := make([]string, 0, len(got.keys))
	for k := range got.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	must.Eq(t, want, keys)
	must.MapContainsKeys(t, got.labels, []string{"job", "node_id"})
	must.MapLen(t, 2, got.labels)
}
