package website

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/shoenig/test/must"
)

// TestRelativeLinks holds that every relative link in the documentation,
// the README and the examples' Markdown points at a file that exists and,
// when it names an #anchor, at a heading (or an element id) of that file.
// Links in code (fenced blocks, code spans) are not links; links with a
// scheme (https:, mailto:) are not checked.
func TestRelativeLinks(t *testing.T) {
	files := markdownFiles(t)
	must.SliceNotEmpty(t, files)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(data))
		anchors[path] = a
		return a, nil
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		must.NoError(t, err)
		for _, link := range markdownLinks(string(data)) {
			target, anchor, external := splitLink(link)
			if external {
				continue
			}
			path := file
			if target != "" {
				path = filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %q, which does not exist", file, link)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			a, err := anchorsOf(path)
			if err != nil {
				t.Errorf("%s links to %q: %v", file, link, err)
				continue
			}
			if !a[anchor] {
				t.Errorf("%s links to %q, but %s has no heading with anchor #%s", file, link, path, anchor)
			}
		}
	}
}

// markdownFiles lists the Markdown files whose links are checked.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(repoRoot, "README.md")}
	for _, dir := range []string{".", filepath.Join(repoRoot, "examples")} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && filepath.Ext(path) == ".md" {
				files = append(files, path)
			}
			return nil
		})
		must.NoError(t, err)
	}
	return files
}

var (
	inlineLink    = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	referenceLink = regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
)

// markdownLinks returns the targets of md's links, leaving out code.
func markdownLinks(md string) []string {
	text := codeSpanPattern.ReplaceAllString(prose(md), "")
	var out []string
	for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	for _, m := range referenceLink.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// splitLink splits a link target into a path and an anchor; external is
// set for links with a scheme or to another host.
func splitLink(link string) (target, anchor string, external bool) {
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "", "", true
	}
	return u.Path, u.Fragment, false
}

var (
	headingLine = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlID      = regexp.MustCompile(`\b(?:id|name)="([^"]+)"`)
)

// headingAnchors returns the anchors of md's headings, as GitHub makes
// them, and of elements with an id or name attribute.
func headingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	counts := map[string]int{}
	for line := range strings.Lines(prose(md)) {
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := headingLine.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		slug := headingSlug(m[1])
		if n := counts[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		counts[slug]++
	}
	return anchors
}

// headingSlug is GitHub's anchor for a heading: lower case, punctuation
// dropped but for "-" and "_", spaces turned into "-".
func headingSlug(heading string) string {
	heading = inlineLinkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var inlineLinkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

func TestHeadingAnchors(t *testing.T) {
	md := "# Title\n\n## `max_run_duration`\n\n```\n# not a heading\n```\n\n## General options\n\n## General options\n\n<a id=\"custom\"></a>\n"
	got := headingAnchors(md)
	for _, want := range []string{"title", "max_run_duration", "general-options", "general-options-1", "custom"} {
		must.True(t, got[want], must.Sprintf("missing anchor %q in %v", want, got))
	}
	must.False(t, got["not-a-heading"])
	must.Eq(t, []string{"a.md#x", "b.md"}, markdownLinks("see [a](a.md#x) and `[c](c.md)` and\n\n[ref]: b.md\n"))
}

// TestNamedFilesExist holds that a file the docs, the README or the
// examples (their comments included) name in passing, as "DESIGN.md" or
// "CHANGELOG.md", is in the repository: such a name is not a link, so
// TestRelativeLinks does not see it, and the examples once sent readers
// to a DESIGN.md the repository does not have.
func TestNamedFilesExist(t *testing.T) {
	named := regexp.MustCompile(`\b[A-Z][A-Z0-9_-]*\.md\b`)
	files := markdownFiles(t)
	hcl, err := filepath.Glob(filepath.Join(examplesDir, "*.hcl"))
	must.NoError(t, err)
	files = append(files, hcl...)
	exists := map[string]bool{}
	err = filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case !d.IsDir():
			exists[d.Name()] = true
		}
		return nil
	})
	must.NoError(t, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		must.NoError(t, err)
		for _, name := range named.FindAllString(string(data), -1) {
			must.True(t, exists[name], must.Sprintf("%s names %s, which the repository does not have", file, name))
		}
	}
}
