package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

// TestJobValidate_NamesNomadBlocks validates a Nomad jobspec with blocks
// and arguments Drover does not implement: each is named as Nomad's, at
// its position, with a pointer to the differences page, instead of hcl's
// generic "Blocks of type ... are not expected here".
func TestJobValidate_NamesNomadBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nomad.hcl")
	must.NoError(t, os.WriteFile(path, []byte(`job "web" {
  migrate {
    max_parallel = 1
  }
  group "g" {
    migrate {
      max_parallel = 1
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      vault {
        role = "app"
        env  = true
      }
    }
  }
}
`), 0o644))
	code, out, errOut := runCLI(t, "", "job", "validate", path)
	must.Eq(t, 1, code, must.Sprint(out))
	for _, want := range []string{
		path + `:2,3-10: "migrate" is a Nomad block that Drover does not support yet; see website/content/docs/differences.md.`,
		path + `:6,5-12: "migrate" is a Nomad block that Drover does not support yet; see website/content/docs/differences.md.`,
		path + `:12,7-12: "vault" is a Nomad block that Drover does not support yet; see website/content/docs/differences.md.`,
	} {
		must.StrContains(t, errOut, want)
	}
	must.StrNotContains(t, errOut, "are not expected here")
}
