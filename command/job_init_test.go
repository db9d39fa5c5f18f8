package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

func TestJobInit_WritesValidMaxRunExample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ex.hcl")
	code, out, errOut := runCLI(t, "", "job", "init", path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, path)

	body, err := os.ReadFile(path)
	must.NoError(t, err)
	must.StrContains(t, string(body), "max_run_duration")

	code, _, errOut = runCLI(t, "", "job", "validate", path)
	must.Eq(t, 0, code, must.Sprint(errOut))
}

func TestJobInit_RefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ex.hcl")
	must.NoError(t, os.WriteFile(path, []byte("mine"), 0o644))
	code, _, errOut := runCLI(t, "", "job", "init", path)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "already exists")
	body, err := os.ReadFile(path)
	must.NoError(t, err)
	must.Eq(t, "mine", string(body))
}

func TestJobInit_DefaultName(t *testing.T) {
	t.Chdir(t.TempDir())
	code, _, errOut := runCLI(t, "", "job", "init")
	must.Eq(t, 0, code, must.Sprint(errOut))
	_, err := os.Stat(DefaultInitName)
	must.NoError(t, err)
}
