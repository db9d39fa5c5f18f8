package jobspec2

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api/unsupported"
)

// TestUnsupported_TableAgainstTheParser holds api/unsupported's jobspec
// forms to the parser: each sits in a block the parser decodes and names
// nothing that block accepts (a form the parser learns leaves the table).
func TestUnsupported_TableAgainstTheParser(t *testing.T) {
	schema := Schema()
	for _, f := range unsupported.Fields() {
		for _, form := range f.HCL {
			parent, name, ok := strings.Cut(form, ".")
			must.True(t, ok, must.Sprintf("jobspec form %q is not <block>.<name>", form))
			bs, known := schema[parent]
			must.True(t, known && !bs.Freeform, must.Sprintf("jobspec form %q: the parser decodes no block %q", form, parent))
			must.SliceNotContains(t, bs.Attributes, name, must.Sprintf("the parser accepts the argument %q in %q now: remove it from api/unsupported's table", name, parent))
			must.SliceNotContains(t, bs.Blocks, name, must.Sprintf("the parser accepts the block %q in %q now: remove it from api/unsupported's table", name, parent))
		}
	}
}

// TestUnsupported_SaysNomadsAndWhere writes every jobspec form the table
// lists where Nomad writes it: the parser's error names it as a Nomad
// block or argument Drover does not support yet, at its position, with a
// pointer to the differences page and the reason.
func TestUnsupported_SaysNomadsAndWhere(t *testing.T) {
	schema := Schema()
	paths := blockPaths(schema)
	for _, f := range unsupported.Fields() {
		for _, form := range f.HCL {
			t.Run(form, func(t *testing.T) {
				parent, name, _ := strings.Cut(form, ".")
				kind, stmt := "argument", name+` = "x"`
				if f.Block {
					kind, stmt = "block", name+" {\n}"
				}
				path := paths[parent]
				src := nestedSource(schema, path, stmt)
				line := len(path) + 1
				_, err := ParseWithConfig(&ParseConfig{Path: "job.hcl", Body: []byte(src)})
				want := fmt.Sprintf("job.hcl:%d,1-%d: %q is a Nomad %s that Drover does not support yet; see %s. ",
					line, len(name)+1, name, kind, unsupported.DocsPage)
				must.ErrorContains(t, err, want, must.Sprint(src))
				must.ErrorContains(t, err, f.Reason)
			})
		}
	}
}

func TestUnsupported_Messages(t *testing.T) {
	_, err := parseString(t, `job "j" {
  migrate {
    max_parallel = 2
  }
  ui {
    description = "x"
  }
  group "g" {
    ephemeral_disk {
      size   = 300
      sticky = true
    }
    max_client_disconnect = "1h"
    task "t" {
      driver = "raw_exec"
      restart {
        render_templates = true
      }
      bogus {}
    }
  }
}
`)
	const see = "; see website/content/docs/differences.md. "
	must.EqError(t, err, strings.Join([]string{
		`job.hcl:2,3-10: "migrate" is a Nomad block that Drover does not support yet` + see +
			`Ignoring it would change what runs unless it holds only Nomad's defaults (then remove it): a node drain would not pace the allocations it moves.`,
		`job.hcl:5,3-5: "ui" is a Nomad block that Drover does not support yet` + see +
			`Drover would ignore it, as it changes nothing the job does (only Nomad's web UI shows it: a description and links): remove it.`,
		`job.hcl:11,7-13: "sticky" is a Nomad argument that Drover does not support yet` + see +
			`Ignoring it would change what runs: a replacement allocation would not be placed on the previous one's node, nor get its data.`,
		`job.hcl:13,5-26: "max_client_disconnect" is a Nomad argument that Drover does not support yet` + see +
			`Ignoring it would change what runs: allocations on a disconnected node would be replaced at once, not after the time it allows.`,
		`job.hcl:17,9-25: "render_templates" is a Nomad argument that Drover does not support yet` + see +
			`Drover would ignore it, as it changes nothing the job does (Drover renders a task's templates before each of its runs, whatever it says): remove it.`,
		`job.hcl:19,7-12: Unsupported block type; Blocks of type "bogus" are not expected here. Did you mean "logs"?`,
	}, "\n"))
}
