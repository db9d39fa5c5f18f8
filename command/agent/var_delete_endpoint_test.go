package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestVarDelete_checkAndSet(t *testing.T) {
	a := testAgent(t)
	waitForKeyring(t, a, "")
	resp := do(t, a, http.MethodPut, "/v1/var/tmp/x", api.Variable{Items: api.VariableItems{"k": "v"}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var v api.Variable
	must.NoError(t, json.Unmarshal(resp.body, &v))

	resp = do(t, a, http.MethodDelete, fmt.Sprintf("/v1/var/tmp/x?cas=%d", v.ModifyIndex-1), nil)
	must.Eq(t, http.StatusConflict, resp.code, must.Sprint(resp))
	var conflict api.Variable
	must.NoError(t, json.Unmarshal(resp.body, &conflict))
	must.Eq(t, v.ModifyIndex, conflict.ModifyIndex)

	resp = do(t, a, http.MethodDelete, fmt.Sprintf("/v1/var/tmp/x?cas=%d", v.ModifyIndex), nil)
	must.Eq(t, http.StatusNoContent, resp.code, must.Sprint(resp))
	must.Eq(t, http.StatusNotFound, do(t, a, http.MethodGet, "/v1/var/tmp/x", nil).code)
	// Deleting what is not there is not an error, as in Nomad.
	must.Eq(t, http.StatusNoContent, do(t, a, http.MethodDelete, "/v1/var/tmp/x", nil).code)
}

// TestVarDelete_keyringKeepsKeysInUse: the key that encrypts a variable
// cannot be removed, even forced, until a full rotation re-encrypts it.
func TestVarDelete_keyringKeepsKeysInUse(t *testing.T) {
	a := testAgent(t)
	waitForKeyring(t, a, "")
	var keys []api.RootKeyMeta
	get(t, a, keyringKeysPath, &keys)
	old := keys[0].KeyID
	must.Eq(t, http.StatusOK, do(t, a, http.MethodPut, "/v1/var/k/v", api.Variable{Items: api.VariableItems{"k": "v"}}).code)
	must.Eq(t, http.StatusOK, do(t, a, http.MethodPut, keyringRotatePath, nil).code)
	resp := do(t, a, http.MethodDelete, "/v1/operator/keyring/key/"+old+"?force=true", nil)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "still encrypts 1 variables")
	must.Eq(t, http.StatusOK, do(t, a, http.MethodPut, keyringRotatePath+"?full=true", nil).code)
	resp = do(t, a, http.MethodDelete, "/v1/operator/keyring/key/"+old+"?force=true", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.StrContains(t, do(t, a, http.MethodGet, "/v1/var/k/v", nil).String(), `"k":"v"`)
}
