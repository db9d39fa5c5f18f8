package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

func TestJobValidate_AcceptsDesignExample(t *testing.T) {
	code, out, errOut := runCLI(t, "", "job", "validate", "testdata/maxrun.hcl")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Job validation successful")
}

func TestJobValidate_RejectsServiceMaxRunDurationNamingGroup(t *testing.T) {
	code, _, errOut := runCLI(t, "", "job", "validate", "testdata/service-maxrun.hcl")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `"frontend"`)
	must.StrContains(t, errOut, `Job type "service" does not allow max_run_duration`)
}

func TestJobValidate_ReadsStdin(t *testing.T) {
	spec, err := os.ReadFile("testdata/maxrun.hcl")
	must.NoError(t, err)
	code, out, errOut := runCLI(t, string(spec), "job", "validate", "-")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Job validation successful")
}

func TestJobValidate_ListsEveryProblem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.hcl")
	must.NoError(t, os.WriteFile(path, []byte(`
job "bad" {
  type = "service"
  group "a" {
    max_run_duration = "5s"
    task "t" {
      config { command = "/bin/true" }
    }
  }
}
`), 0o644))
	code, _, errOut := runCLI(t, "", "job", "validate", path)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `does not allow max_run_duration`)
	must.StrContains(t, errOut, `river`) // the missing driver of task "t"
}

func TestJobValidate_ParseErrorHasPosition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.hcl")
	must.NoError(t, os.WriteFile(path, []byte("job \"x\" {\n  tpye = \"batch\"\n}\n"), 0o644))
	code, _, errOut := runCLI(t, "", "job", "validate", path)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "typo.hcl:2")
}

func TestJobValidate_Usage(t *testing.T) {
	code, _, errOut := runCLI(t, "", "job", "validate")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "one argument")

	code, _, errOut = runCLI(t, "", "job", "validate", "-bogus", "x")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "bogus")

	code, _, errOut = runCLI(t, "", "job", "validate", "/does/not/exist.hcl")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "/does/not/exist.hcl")
}

// The CLI reads the user's files for file(), relative to the jobspec.
func TestJobValidate_FileFunction(t *testing.T) {
	dir := t.TempDir()
	must.NoError(t, os.WriteFile(filepath.Join(dir, "cmd.txt"), []byte("/bin/true"), 0o644))
	spec := filepath.Join(dir, "job.hcl")
	must.NoError(t, os.WriteFile(spec, []byte(`
job "f" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = trimspace(file("cmd.txt")) }
    }
  }
}
`), 0o644))
	code, out, errOut := runCLI(t, "", "job", "run", "-output", spec)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, `"command": "/bin/true"`)
}
