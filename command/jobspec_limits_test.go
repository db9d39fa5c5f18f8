package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// Class 2 and 3 for the CLI: a jobspec nested 100,000 deep crashed the
// CLI with a stack overflow, like the agent; nested for expressions ran
// for minutes. job validate, job run and job plan parse through the same
// guard as the agent, and fail with the limit named before any request.
func TestCLI_jobspecLimits(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep.hcl")
	must.NoError(t, os.WriteFile(deep, []byte(`job "x" { meta = { a = `+strings.Repeat("[", 100_000)+` } }`), 0o600))
	work := filepath.Join(dir, "work.hcl")
	must.NoError(t, os.WriteFile(work, []byte(`job "x" { meta = { a = jsonencode([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]]) } }`), 0o600))

	// job plan exits 255 on an error, as Nomad's does.
	for _, c := range []struct {
		cmd  []string
		exit int
	}{{[]string{"job", "validate"}, 1}, {[]string{"job", "run"}, 1}, {[]string{"job", "plan"}, 255}} {
		cmd := c.cmd
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			// No agent listens there: the jobspec must be refused first.
			args := append(append([]string{}, cmd...), "-address", "http://127.0.0.1:1")
			if cmd[1] == "validate" {
				args = cmd
			}
			code, _, errOut := runCLI(t, "", append(args, deep)...)
			must.Eq(t, c.exit, code, must.Sprint(errOut))
			must.StrContains(t, errOut, "Jobspec nested too deeply")
			must.StrContains(t, errOut, "(limits.hcl_max_depth)")

			start := time.Now()
			code, _, errOut = runCLI(t, "", append(args, work)...)
			must.Eq(t, c.exit, code, must.Sprint(errOut))
			must.StrContains(t, errOut, "(limits.hcl_max_eval_work)")
			must.Less(t, 20*time.Second, time.Since(start))
		})
	}
}
