package command

import (
	"regexp"
	"testing"

	"github.com/shoenig/test/must"
)

func TestJobStop_StopsThenPurges(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, "testdata/maxrun.hcl")

	code, out, errOut := runCLI(t, "", "job", "stop", "-address", addr, "-detach", "maxrun")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, regexp.MustCompile(`^[0-9a-f-]{36}\n$`), out)

	code, out, _ = runCLI(t, "", "job", "status", "-address", addr, "maxrun")
	must.Eq(t, 0, code)
	must.RegexMatch(t, regexp.MustCompile(`Status        = \w+ \(stopped\)\n`), out)

	code, _, errOut = runCLI(t, "", "job", "stop", "-address", addr, "-detach", "-purge", "maxrun")
	must.Eq(t, 0, code, must.Sprint(errOut))

	code, _, errOut = runCLI(t, "", "job", "status", "-address", addr, "maxrun")
	must.Eq(t, 1, code)
	must.Eq(t, "No job(s) with prefix or id \"maxrun\" found\n", errOut)
}

func TestJobStop_AsksWhenGivenAPrefix(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, "testdata/maxrun.hcl")

	code, out, _ := runCLI(t, "n\n", "job", "stop", "-address", addr, "-detach", "maxr")
	must.Eq(t, 0, code)
	must.StrContains(t, out, `Are you sure you want to stop job "maxrun"? [y/N]`)
	must.StrContains(t, out, "Cancelling job stop")
	_, out, _ = runCLI(t, "", "job", "status", "-address", addr, "-short", "maxrun")
	must.StrNotContains(t, out, "(stopped)")

	// Nobody to answer: nothing is stopped.
	code, _, errOut := runCLI(t, "", "job", "stop", "-address", addr, "-detach", "maxr")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "use -yes")

	code, _, errOut = runCLI(t, "maybe\n", "job", "stop", "-address", addr, "-detach", "maxr")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `Answer "maybe" is neither y nor n`)

	code, _, errOut = runCLI(t, "y\n", "job", "stop", "-address", addr, "-detach", "maxr")
	must.Eq(t, 0, code, must.Sprint(errOut))
	_, out, _ = runCLI(t, "", "job", "status", "-address", addr, "-short", "maxrun")
	must.StrContains(t, out, "(stopped)")
}

func TestJobStop_UnknownJob(t *testing.T) {
	_, addr := testAgent(t)
	code, _, errOut := runCLI(t, "", "job", "stop", "-address", addr, "-yes", "nope")
	must.Eq(t, 1, code)
	must.Eq(t, "No job(s) with prefix or id \"nope\" found\n", errOut)

	code, _, errOut = runCLI(t, "", "job", "stop", "-address", addr)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "one argument")
}

// TestJobStop_PeriodicSaysWhatItDid: a periodic job has no evaluation to
// follow; stopping it says that it launches no more children and which of
// its children keep running.
func TestJobStop_PeriodicSaysWhatItDid(t *testing.T) {
	_, addr := testAgent(t)
	for id, cron := range map[string]string{"nightly": "0 3 * * *", "weekly": "0 3 * * 0"} {
		code, _, errOut := runCLI(t, "", "job", "run", "-address", addr, "-detach",
			writeJob(t, id, `periodic {
    crons = ["`+cron+`"]
  }`))
		must.Eq(t, 0, code, must.Sprint(errOut))
	}
	code, _, errOut := runOneCommand(t, newJobPeriodicForce, "", "-address", addr, "-detach", "nightly")
	must.Eq(t, 0, code, must.Sprint(errOut))

	code, out, errOut := runCLI(t, "", "job", "stop", "-address", addr, "nightly")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, regexp.MustCompile(`^Periodic job "nightly" stopped: it launches no more children.\n`+
		`The job it launched keeps running; stop it with "drover job stop nightly/periodic-\d+".\n$`), out)

	code, out, errOut = runCLI(t, "", "job", "stop", "-address", addr, "-purge", "weekly")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, "Periodic job \"weekly\" purged: it launches no more children. None of the jobs it launched is still running.\n", out)
}
