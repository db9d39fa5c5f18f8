package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

// TestJobValidate_DriverConfigTypo: a key the task's driver does not take
// fails validation at its line, with the key it most likely meant.
func TestJobValidate_DriverConfigTypo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "typo.hcl")
	must.NoError(t, os.WriteFile(path, []byte(`job "typo" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        comand = "/bin/true"
      }
    }
  }
}
`), 0o644))
	code, out, errOut := runCLI(t, "", "job", "validate", path)
	must.Eq(t, 1, code, must.Sprint(out))
	must.Eq(t, "parse job "+path+": "+path+`:6,7-13: Invalid raw_exec config; Task "t": config key "command" is required.
`+path+`:7,9-15: Invalid raw_exec config; Task "t": unsupported config key "comand": did you mean "command"? (supported: command, args, work_dir).
`, errOut)
}
