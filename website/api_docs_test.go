package website

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// agentDir holds the agent's HTTP server, whose routes the API reference
// documents.
var agentDir = filepath.Join(repoRoot, "command", "agent")

// route is one method on one path, with path parameters written ":name".
type route struct{ method, path string }

func (r route) String() string { return r.method + " " + r.path }

// TestAPIReference holds the HTTP API reference to the routes the agent
// registers, both ways: every route the code registers is documented, and
// every documented route is registered. Routes are read from the agent's
// source (see registeredRoutes); the reference lists them in tables of
// api/*.md whose rows start with the methods and the path as code spans:
//
//	| `PUT`, `POST` | `/v1/job/:id` | ... |
func TestAPIReference(t *testing.T) {
	registered := registeredRoutes(t, agentDir)
	must.SliceNotEmpty(t, registered)
	documented := documentedRoutes(readDocs(t, "api"))
	for _, r := range registered {
		must.True(t, documented[r], must.Sprintf("route %s is registered but not in the API reference (website/content/docs/api/*.md)", r))
	}
	for r := range documented {
		must.True(t, slices.Contains(registered, r), must.Sprintf("the API reference documents %s, which the agent does not register", r))
	}
}

// registeredRoutes reads the routes the agent registers from the Go
// source of dir: every call X.handle(pattern, ...) with a pattern of the
// form "METHOD /path", and every call of a function literal bound to a
// name, such as
//
//	write := func(path string, h handlerFunc) { s.handle("PUT "+path, h); ... }
//	write("/v1/jobs", ...)
//
// whose methods are the "METHOD " prefixes it passes to handle. Patterns
// and paths may be string literals, string constants of the package, or
// concatenations of them. A registration the test cannot read fails it
// rather than going unchecked.
func registeredRoutes(t *testing.T, dir string) []route {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	must.NoError(t, err)
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		must.NoError(t, err)
		parsed = append(parsed, f)
	}
	consts, _ := packageNames(parsed)
	eval := func(e ast.Expr) (string, bool) { return constString(e, consts) }

	var routes []route
	for _, f := range parsed {
		helpers, bodies := routeHelpers(f)
		inHelper := func(n ast.Node) bool {
			for _, b := range bodies {
				if n.Pos() >= b.Pos() && n.End() <= b.End() {
					return true
				}
			}
			return false
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			where := fset.Position(call.Pos())
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if fn.Sel.Name != "handle" || inHelper(call) {
					return true
				}
				pattern, ok := eval(call.Args[0])
				if !ok {
					t.Errorf("%s: cannot read the pattern of this handle call", where)
					return true
				}
				method, path, ok := strings.Cut(pattern, " ")
				if !ok || !strings.HasPrefix(path, "/") {
					t.Errorf("%s: handle(%q) is not of the form \"METHOD /path\"", where, pattern)
					return true
				}
				routes = append(routes, route{method, normalizePath(path)})
			case *ast.Ident:
				methods, isHelper := helpers[fn.Name]
				if !isHelper {
					return true
				}
				path, ok := eval(call.Args[0])
				if !ok || !strings.HasPrefix(path, "/") {
					t.Errorf("%s: cannot read the path passed to %s", where, fn.Name)
					return true
				}
				if len(methods) == 0 {
					t.Errorf("%s: cannot tell the methods %s registers", where, fn.Name)
				}
				for _, m := range methods {
					routes = append(routes, route{m, normalizePath(path)})
				}
			}
			return true
		})
	}
	slices.SortFunc(routes, func(a, b route) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(routes)
}

// constString evaluates a string literal, a string constant of the
// package, or a concatenation of them.
func constString(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		return stringLit(e)
	case *ast.Ident:
		v, ok := consts[e.Name]
		return v, ok
	case *ast.ParenExpr:
		return constString(e.X, consts)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := constString(e.X, consts)
		if !ok {
			return "", false
		}
		y, ok := constString(e.Y, consts)
		return x + y, ok
	}
	return "", false
}

// routeHelpers finds the function literals bound to names that call
// .handle, and the "METHOD " prefixes each passes; it also returns their
// bodies, whose own handle calls are the helpers' business.
func routeHelpers(f *ast.File) (map[string][]string, []*ast.FuncLit) {
	helpers := map[string][]string{}
	var bodies []*ast.FuncLit
	ast.Inspect(f, func(n ast.Node) bool {
		assign, ok := n.(*ast.AssignStmt)
		if !ok || len(assign.Lhs) != len(assign.Rhs) {
			return true
		}
		for i, rhs := range assign.Rhs {
			lit, ok := rhs.(*ast.FuncLit)
			id, named := assign.Lhs[i].(*ast.Ident)
			if !ok || !named || !callsHandle(lit) {
				continue
			}
			var methods []string
			ast.Inspect(lit, func(n ast.Node) bool {
				if s, ok := stringLit(n); ok && methodPrefix.MatchString(s) {
					methods = append(methods, strings.TrimSpace(s))
				}
				return true
			})
			helpers[id.Name] = methods
			bodies = append(bodies, lit)
		}
		return true
	})
	return helpers, bodies
}

var methodPrefix = regexp.MustCompile(`^[A-Z]+ $`)

func callsHandle(lit *ast.FuncLit) bool {
	found := false
	ast.Inspect(lit, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "handle" {
				found = true
			}
		}
		return !found
	})
	return found
}

// stringLit returns the value of a string literal node.
func stringLit(n ast.Node) (string, bool) {
	lit, ok := n.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

var pathParam = regexp.MustCompile(`\{([a-zA-Z_][a-zA-Z0-9_]*)(\.\.\.)?\}`)

// normalizePath writes net/http's {name} parameters as :name, the way the
// reference writes them.
func normalizePath(p string) string {
	return pathParam.ReplaceAllString(p, ":$1")
}

var (
	methodSpan = regexp.MustCompile("`([A-Z]+)`")
	pathSpan   = regexp.MustCompile("^`(/v1/[^`]*|/v1|/\\.well-known/[^`]*)`$")
)

// documentedRoutes reads the routes from the reference's tables: rows
// whose first cell holds methods as code spans and whose second holds the
// path as a code span.
func documentedRoutes(pages map[string]string) map[route]bool {
	out := map[route]bool{}
	for _, text := range pages {
		for line := range strings.Lines(prose(text)) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "|") {
				continue
			}
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) < 2 {
				continue
			}
			m := pathSpan.FindStringSubmatch(strings.TrimSpace(cells[1]))
			if m == nil {
				continue
			}
			for _, method := range methodSpan.FindAllStringSubmatch(cells[0], -1) {
				out[route{method[1], m[1]}] = true
			}
		}
	}
	return out
}

func TestRegisteredRoutes_ReadsHelpersAndPatterns(t *testing.T) {
	dir := t.TempDir()
	src := `package agent

func (s *HTTPServer) registerRoutes() {
	write := func(path string, h handlerFunc) {
		s.handle("PUT "+path, h)
		s.handle("POST "+path, h)
	}
	s.handle("GET /v1/job/{id}", s.jobRead)
	write("/v1/job/{id}", s.jobUpdate)
	s.handle(
		"DELETE /v1/job/{id}",
		s.jobDelete,
	)
	s.handle("PUT "+planPath, s.jobPlan)
	write(planPath+"/x", s.x)
}

const planPath = "/v1/job/{id}/plan"
`
	must.NoError(t, writeFile(filepath.Join(dir, "routes.go"), src))
	got := registeredRoutes(t, dir)
	want := []route{
		{"DELETE", "/v1/job/:id"}, {"GET", "/v1/job/:id"},
		{"POST", "/v1/job/:id"}, {"POST", "/v1/job/:id/plan/x"}, {"PUT", "/v1/job/:id"},
		{"PUT", "/v1/job/:id/plan"}, {"PUT", "/v1/job/:id/plan/x"},
	}
	must.Eq(t, want, got, must.Sprint(fmt.Sprint(got)))

	doc := "| Method | Path |\n|---|---|\n| `PUT`, `POST` | `/v1/job/:id` | Update |\n"
	must.Eq(t, map[route]bool{{"PUT", "/v1/job/:id"}: true, {"POST", "/v1/job/:id"}: true},
		documentedRoutes(map[string]string{"x.md": doc}))
}
