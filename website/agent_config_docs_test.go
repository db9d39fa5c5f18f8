package website

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// configDir is where the agent configuration reference lives.
const configDir = "configuration"

// TestAgentConfigReference holds the agent configuration reference to the
// configuration file parser. The keys are read from the agent's source:
// every `hcl:"name,..."` struct tag, and the names passed as string
// literals to decodeStringMaps (meta and options, which take a block or an
// attribute). Each argument must be documented in configuration/*.md as a
// list entry "- `name` `(type: default)`", and each block named as a code
// span.
func TestAgentConfigReference(t *testing.T) {
	attrs, blocks := configKeys(t, filepath.Join(agentDir, "config"))
	must.SliceNotEmpty(t, attrs)
	pages := joinPages(readDocs(t, configDir))
	text := prose(pages)
	spans := codeSpans(pages)
	for _, name := range attrs {
		must.RegexMatch(t, attributeEntry(name), text,
			must.Sprintf("agent configuration key %q is not documented in %s/*.md as \"- `%s` `(type: default)` - ...\"", name, configDir, name))
	}
	for _, name := range blocks {
		must.True(t, spans[name], must.Sprintf("agent configuration block %q is not named in %s/*.md", name, configDir))
	}
}

// configKeys reads the argument and block names of the agent's
// configuration files from the source of dir.
func configKeys(t *testing.T, dir string) (attrs, blocks []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	must.NoError(t, err)
	fset := token.NewFileSet()
	seen := map[string]bool{}
	add := func(list *[]string, kind, name string) {
		if !seen[kind+name] {
			seen[kind+name] = true
			*list = append(*list, name)
		}
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		must.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				if n.Tag == nil {
					return true
				}
				raw, err := strconv.Unquote(n.Tag.Value)
				if err != nil {
					return true
				}
				tag, ok := reflect.StructTag(raw).Lookup("hcl")
				if !ok {
					return true
				}
				name, kind, _ := strings.Cut(tag, ",")
				switch {
				case name == "":
				case kind == "block":
					add(&blocks, "block", name)
				case kind == "label":
				default:
					add(&attrs, "attr", name)
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "decodeStringMaps" {
					for _, arg := range n.Args {
						if s, ok := stringLit(arg); ok {
							add(&attrs, "attr", s)
						}
					}
				}
			}
			return true
		})
	}
	return attrs, blocks
}
