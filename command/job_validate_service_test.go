package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

// TestJobValidate_ServiceWarnsNotRegistered: a job with a service (no
// provider, Nomad's default consul) validates, with the warning that
// Drover does not run its checks yet; a Connect sidecar is refused by
// name.
func TestJobValidate_ServiceWarnsNotRegistered(t *testing.T) {
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
	code, out, errOut := runCLI(t, "", "job", "validate", write("ok.hcl", `check {
        type     = "tcp"
        interval = "10s"
        timeout  = "2s"
      }`))
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Job Warnings:")
	must.StrContains(t, out, `Drover does not run service checks yet`)
	must.StrContains(t, out, "Job validation successful")

	code, _, errOut = runCLI(t, "", "job", "validate", write("mesh.hcl", `connect {
        sidecar_service {}
      }`))
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `"connect" is a Nomad block that Drover does not support yet`)
}
