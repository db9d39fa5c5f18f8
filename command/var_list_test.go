package command

import (
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestVarList(t *testing.T) {
	addr, vars := varAgent(t)
	code, out, _ := runCLI(t, "", "var", "list", "-address", addr)
	must.Eq(t, 0, code)
	must.StrContains(t, out, "No matching variables found")
	for _, p := range []string{"a/1", "a/2", "a/3", "b/1"} {
		_, _, err := vars.Put(&api.Variable{Path: p, Items: api.VariableItems{"k": "secret-" + p}}, nil, nil)
		must.NoError(t, err)
	}

	code, out, errOut := runCLI(t, "", "var", "list", "-address", addr, "a/")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Namespace")
	must.StrContains(t, out, "a/3")
	must.StrNotContains(t, out, "b/1")
	must.StrNotContains(t, out, "secret-", must.Sprint("a list shows items"))

	code, out, _ = runCLI(t, "", "var", "list", "-address", addr, "-q", "-per-page", "2")
	must.Eq(t, 0, code)
	must.Eq(t, []string{"a/1", "a/2"}, strings.Fields(out))

	code, out, _ = runCLI(t, "", "var", "list", "-address", addr, "-per-page", "2")
	must.Eq(t, 0, code)
	must.StrContains(t, out, "Next page token: a/3")
	code, out, _ = runCLI(t, "", "var", "list", "-address", addr, "-q", "-page-token", "a/3")
	must.Eq(t, 0, code)
	must.Eq(t, []string{"a/3", "b/1"}, strings.Fields(out))

	code, out, _ = runCLI(t, "", "var", "list", "-address", addr, "-t", `{{range .}}{{.Path}};{{end}}`, "b")
	must.Eq(t, 0, code)
	must.Eq(t, "b/1;\n", out)
}
