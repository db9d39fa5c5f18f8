package command

import (
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

func TestClientFlags_UnreachableAgentIsOneClearLine(t *testing.T) {
	addr := freeAddress(t)
	for _, args := range [][]string{
		{"job", "run", "-detach", "testdata/maxrun.hcl"},
		{"job", "status"},
		{"job", "status", "maxrun"},
		{"job", "stop", "maxrun"},
		{"job", "inspect", "maxrun"},
		{"job", "history", "maxrun"},
		{"eval", "status"},
		{"eval", "status", "1a2b"},
		{"node", "status"},
		{"node", "status", "1a2b"},
		{"server", "members"},
		{"operator", "metrics"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := append([]string{args[0], args[1], "-address", addr}, args[2:]...)
			code, out, errOut := runCLI(t, "", full...)
			must.Eq(t, 1, code)
			must.Eq(t, "", out)
			must.StrHasPrefix(t, "Error connecting to Drover at "+addr+": ", errOut)
			must.StrContains(t, errOut, "connection refused")
			must.StrHasSuffix(t, "; is the agent running there? Name its HTTP address with DROVER_ADDR or -address\n", errOut)
			must.Eq(t, 1, strings.Count(errOut, "\n"), must.Sprintf("not one line: %q", errOut))
		})
	}
}

func TestClientFlags_InvalidAddress(t *testing.T) {
	code, _, errOut := runCLI(t, "", "job", "status", "-address", "ftp://example")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `invalid agent address "ftp://example"`)
}

func TestClientFlags_AddressFromEnvironment(t *testing.T) {
	_, addr := testAgent(t)
	unreachable := freeAddress(t)

	t.Setenv("DROVER_ADDR", "")
	t.Setenv("NOMAD_ADDR", addr)
	code, out, errOut := runCLI(t, "", "job", "status")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, "No running jobs\n", out)

	// DROVER_ADDR wins over NOMAD_ADDR, and -address over both.
	t.Setenv("DROVER_ADDR", unreachable)
	code, _, errOut = runCLI(t, "", "job", "status")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, unreachable)

	code, _, errOut = runCLI(t, "", "job", "status", "-address", addr)
	must.Eq(t, 0, code, must.Sprint(errOut))
}

func TestClientFlags_NamespaceScopesRequests(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, "testdata/maxrun.hcl")

	code, out, _ := runCLI(t, "", "job", "status", "-address", addr, "-namespace", "default")
	must.Eq(t, 0, code)
	must.StrContains(t, out, "maxrun")

	code, out, _ = runCLI(t, "", "job", "status", "-address", addr, "-namespace", "other")
	must.Eq(t, 0, code)
	must.StrNotContains(t, out, "maxrun")
}
