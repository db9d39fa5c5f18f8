package command

import (
	"fmt"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestVarPurge(t *testing.T) {
	addr, vars := varAgent(t)
	v, _, err := vars.Put(&api.Variable{Path: "gone/soon", Items: api.VariableItems{"k": "v"}}, nil, nil)
	must.NoError(t, err)

	code, _, errOut := runCLI(t, "", "var", "purge", "-address", addr, "-check-index", fmt.Sprint(v.ModifyIndex+100), "gone/soon")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "cas conflict")
	_, _, err = vars.Read("gone/soon", nil)
	must.NoError(t, err, must.Sprint("a purge at the wrong index deleted the variable"))

	code, out, errOut := runCLI(t, "", "var", "purge", "-address", addr, "-check-index", fmt.Sprint(v.ModifyIndex), "gone/soon")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, `Successfully purged variable "gone/soon"!`)
	_, _, err = vars.Read("gone/soon", nil)
	must.ErrorIs(t, err, api.ErrVariableNotFound)
}
