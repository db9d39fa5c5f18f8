package command

import (
	"encoding/json"
	"regexp"
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
