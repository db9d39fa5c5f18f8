package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// varAgent is a test agent whose keyring holds its first key, so that
// variables can be written.
func varAgent(t *testing.T) (addr string, vars *api.Variables) {
	t.Helper()
	_, addr = testAgent(t)
	client, err := api.NewClient(&api.Config{Address: addr})
	must.NoError(t, err)
	waitfor.True(t, "the keyring's first key", func() bool {
		keys, _, err := client.Keyring().List(nil)
		return err == nil && len(keys) > 0
	})
	return addr, client.Variables()
}

func TestVarPut(t *testing.T) {
	addr, vars := varAgent(t)
	secret := writeFile(t, "pw.txt", "hunter2")
	code, out, errOut := runCLI(t, "from-stdin", "var", "put", "-address", addr, "app/db", "user=app", "password=@"+secret, "note=-")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, `Created variable "app/db" with modify index`)
	v, _, err := vars.Read("app/db", nil)
	must.NoError(t, err)
	must.Eq(t, api.VariableItems{"user": "app", "password": "hunter2", "note": "from-stdin"}, v.Items)

	// A specification as "var get -out hcl" prints it carries the index
	// it was read at: written back after a change, it conflicts.
	_, hcl, _ := runCLI(t, "", "var", "get", "-address", addr, "-out", "hcl", "app/db")
	spec := writeFile(t, "db.hcl", hcl)
	code, _, errOut = runCLI(t, "", "var", "put", "-address", addr, "app/db", "user=other")
	must.Eq(t, 0, code, must.Sprint(errOut))
	code, _, errOut = runCLI(t, "", "var", "put", "-address", addr, "@"+spec, "extra=1")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "cas conflict")
	code, out, errOut = runCLI(t, "", "var", "put", "-address", addr, "-force", "-out", "json", "@"+spec, "extra=1")
	must.Eq(t, 0, code, must.Sprint(errOut))
	var written api.Variable
	must.NoError(t, json.Unmarshal([]byte(out), &written))
	must.Eq(t, api.VariableItems{"user": "app", "password": "hunter2", "note": "from-stdin", "extra": "1"}, written.Items)

	code, _, errOut = runCLI(t, "", "var", "put", "-address", addr, "-check-index", "0", "app/db", "k=v")
	must.Eq(t, 1, code, must.Sprint("-check-index 0 overwrote an existing variable"))
	must.StrContains(t, errOut, "cas conflict")

	jsonSpec := filepath.Join(t.TempDir(), "v.json")
	b, err := json.Marshal(api.Variable{Path: "from/json", Items: api.VariableItems{"a": "b"}})
	must.NoError(t, err)
	must.NoError(t, os.WriteFile(jsonSpec, b, 0o600))
	code, _, errOut = runCLI(t, "", "var", "put", "-address", addr, "@"+jsonSpec)
	must.Eq(t, 0, code, must.Sprint(errOut))
}

func TestVarPut_refusals(t *testing.T) {
	addr, _ := varAgent(t)
	for name, args := range map[string][]string{
		"no items":     {"app/x"},
		"not a pair":   {"app/x", "novalue"},
		"bad path":     {"app/../x", "k=v"},
		"bad index":    {"-check-index", "-1", "app/x", "k=v"},
		"missing file": {"app/x", "k=@/does/not/exist"},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"var", "put", "-address", addr}, args...)...)
		must.Eq(t, 1, code, must.Sprint(name))
		must.StrNotEqFold(t, "", errOut, must.Sprint(name))
	}
}
