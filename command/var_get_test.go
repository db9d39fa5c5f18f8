package command

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestVarGet(t *testing.T) {
	addr, vars := varAgent(t)
	_, _, err := vars.Put(&api.Variable{Path: "app/cfg", Items: api.VariableItems{"port": "8080", "host": "db"}}, nil, nil)
	must.NoError(t, err)

	code, out, errOut := runCLI(t, "", "var", "get", "-address", addr, "app/cfg")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Path")
	must.StrContains(t, out, "app/cfg")
	must.StrContains(t, out, "port")
	must.StrContains(t, out, "8080")

	code, out, _ = runCLI(t, "", "var", "get", "-address", addr, "-item", "port", "app/cfg")
	must.Eq(t, 0, code)
	must.Eq(t, "8080\n", out)

	code, out, _ = runCLI(t, "", "var", "get", "-address", addr, "-out", "go-template", "-template", `{{.Items.host}}:{{.Items.port}}`, "app/cfg")
	must.Eq(t, 0, code)
	must.Eq(t, "db:8080\n", out)

	code, out, _ = runCLI(t, "", "var", "get", "-address", addr, "-out", "hcl", "app/cfg")
	must.Eq(t, 0, code)
	must.StrContains(t, out, `path         = "app/cfg"`)
	must.StrContains(t, out, `port = "8080"`)

	code, _, errOut = runCLI(t, "", "var", "get", "-address", addr, "-item", "nope", "app/cfg")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `no item "nope"`)
	code, _, errOut = runCLI(t, "", "var", "get", "-address", addr, "app/missing")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `Variable "app/missing" not found`)
	code, _, errOut = runCLI(t, "", "var", "get", "-address", addr, "-out", "yaml", "app/cfg")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `unknown -out "yaml"`)
}
