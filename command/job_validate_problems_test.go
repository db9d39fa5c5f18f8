package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// TestJobValidate_ListsEveryParseProblem: one run of job validate lists every
// problem of a jobspec, each at its file:line, whatever kind it is: Nomad
// blocks Drover lacks, a call to an unknown function, a bad affinity, a
// dynamic block over a number, a driver config key, a bad duration.
func TestJobValidate_ListsEveryParseProblem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.hcl")
	must.NoError(t, os.WriteFile(path, []byte(`job "web" {
  migrate {
    max_parallel = 2
  }
  affinity {
    attribute = "${meta.rack}"
    value     = "r1"
    weight    = 500
  }
  group "g" {
    vault {
      role = "app"
    }
    dynamic "constraint" {
      for_each = 3
      content { attribute = "x" }
    }
    task "t" {
      driver       = "docker"
      kill_timeout = "soon"
      config {
        image = "busybox:1"
        uts_mode = "host"
      }
      env {
        ID = nosuchfunc()
      }
    }
  }
}
`), 0o644))
	code, out, errOut := runCLI(t, "", "job", "validate", path)
	must.Eq(t, 1, code, must.Sprint(out))
	want := []string{
		path + `:2,3-10: "migrate" is a Nomad block that Drover does not support yet`,
		path + `:8,17-20: Invalid affinity weight`,
		path + `:11,5-10: "vault" is a Nomad block that Drover does not support yet`,
		path + `:15,18-19: Invalid dynamic for_each value`,
		path + `:20,22-28: Invalid duration`,
		path + `:23,9-17: Invalid docker config; Task "t": unsupported config key "uts_mode"`,
		path + `:26,14-24: Call to unknown function`,
	}
	for _, w := range want {
		must.StrContains(t, errOut, w)
	}
	// In the order of the file, one line each.
	last := -1
	for _, w := range want {
		i := strings.Index(errOut, w)
		must.Greater(t, last, i, must.Sprintf("%q out of order in\n%s", w, errOut))
		last = i
	}
}

// TestJobValidate_NomadBlocksAndValidation: when the parse finds only Nomad
// blocks Drover lacks, the rest of the job is still validated in the
// same run; when it finds other errors, validation waits for them.
func TestJobValidate_NomadBlocksAndValidation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.hcl")
	must.NoError(t, os.WriteFile(path, []byte(`job "web" {
  type = "service"
  migrate {
    max_parallel = 2
  }
  group "g" {
    count            = -1
    max_run_duration = "5s"
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`), 0o644))
	code, _, errOut := runCLI(t, "", "job", "validate", path)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, path+`:3,3-10: "migrate" is a Nomad block that Drover does not support yet`)
	must.StrContains(t, errOut, "Job validation errors:")
	must.StrContains(t, errOut, `Task group "g": Count must not be negative, got -1`)
	must.StrContains(t, errOut, `Job type "service" does not allow max_run_duration`)

	other := filepath.Join(dir, "other.hcl")
	must.NoError(t, os.WriteFile(other, []byte(`job "web" {
  migrate {
    max_parallel = 2
  }
  group "g" {
    count = -1
    task "t" {
      driver       = "raw_exec"
      kill_timeout = "soon"
    }
  }
}
`), 0o644))
	code, _, errOut = runCLI(t, "", "job", "validate", other)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `Invalid duration`)
	must.StrNotContains(t, errOut, "Job validation errors:")
}
