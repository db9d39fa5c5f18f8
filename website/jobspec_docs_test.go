package website

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
	"github.com/drover-io/drover/jobcheck"
	"github.com/drover-io/drover/jobspec2"
	"github.com/drover-io/drover/structs"
)

// specDir is where the jobspec reference lives: one page per block type.
const specDir = "job-specification"

// TestJobspecReference holds the jobspec reference to the parser: for
// every block type jobspec2.Schema describes there is a page named after
// it, which documents each argument the block accepts as a list entry
//
//   - `name` `(type: default)` - what it does
//
// links each block it may contain as [`name`](name.md), and shows the block
// in an hcl example. The reference index links every block page.
func TestJobspecReference(t *testing.T) {
	schema := jobspec2.Schema()
	index := readDoc(t, filepath.Join(specDir, "index.md"))
	for typ, bs := range schema {
		if typ == jobspec2.FileLevel {
			continue
		}
		t.Run(typ, func(t *testing.T) {
			page := readDoc(t, filepath.Join(specDir, typ+".md"))
			text := prose(page)
			for _, attr := range bs.Attributes {
				must.RegexMatch(t, attributeEntry(attr), text,
					must.Sprintf("%s.md does not document argument %q as \"- `%s` `(type: default)` - ...\"", typ, attr, attr))
			}
			for _, nested := range bs.Blocks {
				must.RegexMatch(t, blockLink(nested), text,
					must.Sprintf("%s.md does not link the nested block %q as [`%s`](%s.md)", typ, nested, nested, nested))
			}
			must.True(t, hasHCLExampleOf(page, typ), must.Sprintf("%s.md has no hcl example of a %s block", typ, typ))
			must.RegexMatch(t, blockLink(typ), prose(index),
				must.Sprintf("%s/index.md does not link %s.md", specDir, typ))
		})
	}
}

// TestJobspecReference_NoStrayPages holds that every page of the reference
// but the index is a block type the parser knows.
func TestJobspecReference_NoStrayPages(t *testing.T) {
	schema := jobspec2.Schema()
	entries, err := os.ReadDir(filepath.Join(docsDir, specDir))
	must.NoError(t, err)
	for _, e := range entries {
		name, isPage := strings.CutSuffix(e.Name(), ".md")
		if !isPage || name == "index" {
			continue
		}
		_, known := schema[name]
		must.True(t, known, must.Sprintf("%s/%s documents a block the parser does not accept", specDir, e.Name()))
	}
}

// TestJobspecReference_Functions holds that the reference index lists
// every function a jobspec may call.
func TestJobspecReference_Functions(t *testing.T) {
	spans := codeSpans(readDoc(t, filepath.Join(specDir, "index.md")))
	for _, fn := range jobspec2.Functions() {
		must.True(t, spans[fn], must.Sprintf("%s/index.md does not list the function `%s`", specDir, fn))
	}
}

func attributeEntry(name string) *regexp.Regexp {
	return regexp.MustCompile("(?m)^\\s*[-*] `" + regexp.QuoteMeta(name) + "` `\\([^`]+:[^`]*\\)`")
}

func blockLink(name string) *regexp.Regexp {
	return regexp.MustCompile("\\[`" + regexp.QuoteMeta(name) + "`\\]\\(" + regexp.QuoteMeta(name) + "\\.md(#[^)]*)?\\)")
}

// hasHCLExampleOf reports whether an hcl code block of page opens a block
// of type typ.
func hasHCLExampleOf(page, typ string) bool {
	opens := regexp.MustCompile("(?m)^\\s*" + regexp.QuoteMeta(typ) + "(\\s+\"[^\"]*\")*\\s*\\{")
	for _, block := range fencedBlocks(page, "hcl") {
		if opens.MatchString(block) {
			return true
		}
	}
	return false
}

// TestDocExamples_Valid holds that every complete jobspec shown in the
// documentation (an hcl code block with a top-level job block) parses and
// passes validation, so that a reader can run what the pages show.
func TestDocExamples_Valid(t *testing.T) {
	topLevelJob := regexp.MustCompile(`(?m)^job\s+"`)
	checked := 0
	for rel, page := range readDocs(t, ".") {
		for i, block := range fencedBlocks(page, "hcl") {
			if !topLevelJob.MatchString(block) {
				continue
			}
			checked++
			name := fmt.Sprintf("%s#%d", rel, i+1)
			apiJob, err := jobspec2.ParseWithConfig(&jobspec2.ParseConfig{Path: name, Body: []byte(block), Strict: true, CheckDrivers: true})
			if err != nil {
				t.Errorf("example %d of %s does not parse: %v", i+1, rel, err)
				continue
			}
			if err := jobcheck.Submitted(agent.CanonicalJob(apiJob), structs.JobLimits{}); err != nil {
				t.Errorf("example %d of %s is not valid: %v", i+1, rel, err)
			}
		}
	}
	must.Positive(t, checked)
}
