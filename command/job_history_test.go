package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

func TestJobHistory_ListsVersionsNewestFirst(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, "testdata/maxrun.hcl")
	runDetached(t, addr, writeJob(t, "maxrun", `priority = 70`))

	code, out, errOut := runCLI(t, "", "job", "history", "-address", addr, "maxr")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, regexp.MustCompile(`^`+
		`Version     = 1\nStable      = false\nSubmit Date = \S+T\S+\n\n`+
		`Version     = 0\nStable      = false\nSubmit Date = \S+T\S+\n$`), out)

	code, out, _ = runCLI(t, "", "job", "history", "-address", addr, "-version", "0", "maxrun")
	must.Eq(t, 0, code)
	must.StrHasPrefix(t, "Version     = 0\n", out)
	must.StrNotContains(t, out, "Version     = 1")

	code, out, _ = runCLI(t, "", "job", "history", "-address", addr, "-json", "maxrun")
	must.Eq(t, 0, code)
	var versions []*nomadapi.Job
	must.NoError(t, json.Unmarshal([]byte(out), &versions))
	must.Len(t, 2, versions)

	code, _, errOut = runCLI(t, "", "job", "history", "-address", addr, "-version", "3", "maxrun")
	must.Eq(t, 1, code)
	must.Eq(t, "Job \"maxrun\" has no version 3\n", errOut)
}

func TestJobHistory_UnknownJob(t *testing.T) {
	_, addr := testAgent(t)
	code, _, errOut := runCLI(t, "", "job", "history", "-address", addr, "nope")
	must.Eq(t, 1, code)
	must.Eq(t, "No job(s) with prefix or id \"nope\" found\n", errOut)
}

// writeHistJob writes job "hist" with the given job meta, group count and
// max_run_duration, and returns its path.
func writeHistJob(t *testing.T, meta string, count int, maxRun string) string {
	t.Helper()
	spec := `job "hist" {
  type = "batch"
  ` + meta + `
  group "g" {
    count            = ` + strconv.Itoa(count) + `
    max_run_duration = "` + maxRun + `"
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`
	path := filepath.Join(t.TempDir(), "hist.hcl")
	must.NoError(t, os.WriteFile(path, []byte(spec), 0o644))
	return path
}

func TestJobHistory_DiffsWithP(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, writeHistJob(t, "", 1, "10s"))
	runDetached(t, addr, writeHistJob(t, `meta { owner = "ops" }`, 2, "20s"))

	// The diff of version 1 is printed as `job plan` prints one.
	wantDiff := `+/- Job: "hist"
+   Meta[owner]: "ops"
+/- Task Group: "g"
  +/- Count:          "1" => "2"
  +/- MaxRunDuration: "10s" => "20s"
      Task: "t"
`
	code, out, errOut := runCLI(t, "", "job", "history", "-address", addr, "-p", "hist")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, regexp.MustCompile(`^`+
		`Version     = 1\nStable      = false\nSubmit Date = \S+T\S+\nDiff        =\n`+
		regexp.QuoteMeta(wantDiff)+`\n`+
		`Version     = 0\nStable      = false\nSubmit Date = \S+T\S+\n$`), out)

	// -version with -p: that version alone, with its diff.
	code, out, errOut = runCLI(t, "", "job", "history", "-address", addr, "-p", "-version=1", "hist")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, regexp.MustCompile(`^Version     = 1\n(.+\n){2}Diff        =\n`+regexp.QuoteMeta(wantDiff)+`$`), out)

	// The oldest version has nothing to differ from.
	code, out, errOut = runCLI(t, "", "job", "history", "-address", addr, "-p", "-version=0", "hist")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrHasPrefix(t, "Version     = 0\n", out)
	must.StrNotContains(t, out, "Diff")
	must.Eq(t, 3, strings.Count(out, "\n"))

	// -json prints the versions alone, with or without -p.
	code, out, errOut = runCLI(t, "", "job", "history", "-address", addr, "-p", "-json", "hist")
	must.Eq(t, 0, code, must.Sprint(errOut))
	var versions []*nomadapi.Job
	must.NoError(t, json.Unmarshal([]byte(out), &versions))
	must.Len(t, 2, versions)
	must.Eq(t, "ops", versions[0].Meta["owner"])
}
