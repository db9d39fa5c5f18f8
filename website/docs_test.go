package website

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// repoRoot is the repository's top directory, seen from this package.
const repoRoot = ".."

// docsDir is where the Markdown documentation lives.
var docsDir = filepath.Join("content", "docs")

// readDoc returns the Markdown file at rel, under the docs directory.
func readDoc(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(docsDir, rel))
	must.NoError(t, err, must.Sprintf("the documentation page %s is missing", filepath.Join(docsDir, rel)))
	return string(data)
}

// readDocs returns the text of every Markdown page under dir (relative to
// the docs directory), keyed by its path relative to the docs directory.
func readDocs(t *testing.T, dir string) map[string]string {
	t.Helper()
	pages := map[string]string{}
	root := filepath.Join(docsDir, dir)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".md" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(docsDir, path)
		if err != nil {
			return err
		}
		pages[rel] = string(data)
		return nil
	})
	must.NoError(t, err)
	must.MapNotEmpty(t, pages, must.Sprintf("no pages under %s", root))
	return pages
}

// fencePattern matches the opening or closing line of a fenced code block.
var fencePattern = regexp.MustCompile("^\\s*(```|~~~)")

// prose returns md without its fenced code blocks: what a reference
// documents must be said in the text, not only shown in an example.
func prose(md string) string {
	var b strings.Builder
	inFence := false
	for line := range strings.Lines(md) {
		if fencePattern.MatchString(line) {
			inFence = !inFence
			continue
		}
		if !inFence {
			b.WriteString(line)
		}
	}
	return b.String()
}

// fencedBlocks returns the contents of md's fenced code blocks whose info
// string is lang.
func fencedBlocks(md, lang string) []string {
	var blocks []string
	var cur strings.Builder
	inFence, keep := false, false
	for line := range strings.Lines(md) {
		if fencePattern.MatchString(line) {
			if inFence {
				if keep {
					blocks = append(blocks, cur.String())
				}
				cur.Reset()
				inFence = false
				continue
			}
			inFence = true
			info := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "`~"))
			keep = info == lang
			continue
		}
		if inFence && keep {
			cur.WriteString(line)
		}
	}
	return blocks
}

// codeSpanPattern matches an inline code span of single backticks.
var codeSpanPattern = regexp.MustCompile("`([^`\n]+)`")

// codeSpans returns the contents of the inline code spans in md's prose.
func codeSpans(md string) map[string]bool {
	spans := map[string]bool{}
	for _, m := range codeSpanPattern.FindAllStringSubmatch(prose(md), -1) {
		spans[m[1]] = true
	}
	return spans
}

func joinPages(pages map[string]string) string {
	var b strings.Builder
	for _, text := range pages {
		b.WriteString(text)
		b.WriteString("\n")
	}
	return b.String()
}

func writeFile(path, content string) error {
	return os.WriteFile(path, []byte(content), 0o644)
}

// packageNames returns a package's string constants and its package-level
// []string literals.
func packageNames(files []*ast.File) (map[string]string, map[string]*ast.CompositeLit) {
	consts := map[string]string{}
	vars := map[string]*ast.CompositeLit{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, id := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if s, ok := stringLit(vs.Values[i]); ok && gd.Tok == token.CONST {
						consts[id.Name] = s
					}
					if lit, ok := stringSliceLit(vs.Values[i]); ok && gd.Tok == token.VAR {
						vars[id.Name] = lit
					}
				}
			}
		}
	}
	return consts, vars
}
