package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestVarWrite_conflictsAnswerTheVariable(t *testing.T) {
	a := testAgent(t)
	waitForKeyring(t, a, "")
	resp := do(t, a, http.MethodPut, "/v1/var/app/db?cas=0", api.Variable{Items: api.VariableItems{"user": "a"}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var created api.Variable
	must.NoError(t, json.Unmarshal(resp.body, &created))
	must.Eq(t, "app/db", created.Path)
	must.Eq(t, "default", created.Namespace)

	resp = do(t, a, http.MethodPut, "/v1/var/app/db?cas=0", api.Variable{Items: api.VariableItems{"user": "b"}})
	must.Eq(t, http.StatusConflict, resp.code, must.Sprint(resp))
	var conflict api.Variable
	must.NoError(t, json.Unmarshal(resp.body, &conflict))
	must.Eq(t, created, conflict)

	for name, tc := range map[string]struct {
		path string
		body any
		want string
	}{
		"no items":          {"/v1/var/app/x", api.Variable{}, "variable missing required Items object"},
		"path mismatch":     {"/v1/var/app/x", api.Variable{Path: "app/y", Items: api.VariableItems{"k": "v"}}, "does not match"},
		"bad cas":           {"/v1/var/app/x?cas=abc", api.Variable{Items: api.VariableItems{"k": "v"}}, "invalid cas"},
		"two lock ops":      {"/v1/var/app/x?lock-acquire&lock-release", api.Variable{}, "one lock operation at a time"},
		"bad lock ttl":      {"/v1/var/app/x?lock-acquire", api.Variable{Lock: &api.VariableLock{TTL: "soon"}}, "lock TTL"},
		"short lock ttl":    {"/v1/var/app/x?lock-acquire", api.Variable{Lock: &api.VariableLock{TTL: "1s"}}, "not between"},
		"release items":     {"/v1/var/app/db?lock-release", api.Variable{Items: api.VariableItems{"k": "v"}, Lock: &api.VariableLock{ID: "x"}}, "cannot change the items"},
		"wildcard ns":       {"/v1/var/app/x?namespace=*", api.Variable{Items: api.VariableItems{"k": "v"}}, "selects every namespace"},
		"reserved path":     {"/v1/var/nomad/secrets", api.Variable{Items: api.VariableItems{"k": "v"}}, "reserved"},
		"missing namespace": {"/v1/var/app/x?namespace=nope", api.Variable{Items: api.VariableItems{"k": "v"}}, `namespace "nope" does not exist`},
	} {
		resp := do(t, a, http.MethodPut, tc.path, tc.body)
		must.Eq(t, http.StatusBadRequest, resp.code, must.Sprintf("%s: %s", name, resp))
		must.StrContains(t, resp.String(), tc.want, must.Sprint(name))
	}
}

func TestVarWrite_locks(t *testing.T) {
	a := testAgent(t)
	waitForKeyring(t, a, "")
	resp := do(t, a, http.MethodPut, "/v1/var/leader?lock-acquire", api.Variable{Items: api.VariableItems{"who": "me"}, Lock: &api.VariableLock{TTL: "20s", LockDelay: "10s"}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var held api.Variable
	must.NoError(t, json.Unmarshal(resp.body, &held))
	must.NotNil(t, held.Lock)
	must.Eq(t, "20s", held.Lock.TTL)
	must.Eq(t, "10s", held.Lock.LockDelay)
	must.Eq(t, "me", held.Items["who"])

	resp = do(t, a, http.MethodPut, "/v1/var/leader?lock-acquire", api.Variable{})
	must.Eq(t, http.StatusConflict, resp.code, must.Sprint(resp))
	resp = do(t, a, http.MethodPut, "/v1/var/leader", api.Variable{Items: api.VariableItems{"who": "you"}})
	must.Eq(t, http.StatusConflict, resp.code, must.Sprint(resp))
	resp = do(t, a, http.MethodDelete, "/v1/var/leader", nil)
	must.Eq(t, http.StatusConflict, resp.code, must.Sprint(resp))

	resp = do(t, a, http.MethodPut, "/v1/var/leader?lock-renew", api.Variable{Lock: &api.VariableLock{ID: held.Lock.ID}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.StrNotContains(t, resp.String(), "Items", must.Sprint("a renewal answers the metadata only"))

	// Release, as Nomad's lock helper sends it: the lock's ID alone.
	resp = do(t, a, http.MethodPut, "/v1/var/leader?lock-release", api.Variable{Lock: &api.VariableLock{ID: held.Lock.ID}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var released api.Variable
	must.NoError(t, json.Unmarshal(resp.body, &released))
	must.Nil(t, released.Lock)
	resp = do(t, a, http.MethodGet, "/v1/var/leader", nil)
	must.StrContains(t, resp.String(), `"who":"me"`)
	resp = do(t, a, http.MethodDelete, "/v1/var/leader", nil)
	must.Eq(t, http.StatusNoContent, resp.code, must.Sprint(resp))
}
