package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

// TestJobValidate_ServiceChecks: a job with a service (no provider,
// Nomad's default consul) and checks, with check_restart and a script
// check, validates without warnings; a script check in a task whose
// driver cannot run commands, and a Connect sidecar, are refused by name.
func TestJobValidate_ServiceChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, service string) string {
		path := filepath.Join(dir, name)
		must.NoError(t, os.WriteFile(path, []byte(`job "web" {
  group "g" {
    network {
      port "http" {}
    }
    service {
      port = "http"
`+service+`
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`), 0o644))
		return path
	}
	code, out, errOut := runCLI(t, "", "job", "validate", write("ok.hcl", `task = "t"
      check {
        type     = "tcp"
        interval = "10s"
        timeout  = "2s"
        check_restart {
          limit = 3
          grace = "30s"
        }
      }
      check {
        type     = "script"
        command  = "/bin/true"
        interval = "10s"
        timeout  = "2s"
        success_before_passing = 2
        failures_before_critical = 3
      }`))
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrNotContains(t, out, "Job Warnings:")
	must.StrContains(t, out, "Job validation successful")

	code, _, errOut = runCLI(t, "", "job", "validate", write("script.hcl", `task = "t"
      check {
        type     = "script"
        command  = "/bin/true"
        interval = "10s"
        timeout  = "2s"
      }`))
	must.Eq(t, 0, code, must.Sprint(errOut), must.Sprint("raw_exec runs commands in its tasks"))

	code, _, errOut = runCLI(t, "", "job", "validate", write("mesh.hcl", `connect {
        sidecar_service {}
      }`))
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `"connect" is a Nomad block that Drover does not support yet`)
}
