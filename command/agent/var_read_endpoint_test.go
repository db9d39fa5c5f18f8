package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// waitForKeyring waits for the first root key, which variables need.
func waitForKeyring(t *testing.T, a *Agent, secret string) {
	t.Helper()
	waitfor.True(t, "the keyring's first key", func() bool {
		resp := doAs(t, a, secret, http.MethodGet, keyringKeysPath, nil)
		var keys []api.RootKeyMeta
		return resp.code == http.StatusOK && json.Unmarshal(resp.body, &keys) == nil && len(keys) > 0
	})
}

// TestVarRead_workloadIdentity: a running task's identity, sent as its
// token, reads its own job's variables over HTTP and no other's.
func TestVarRead_workloadIdentity(t *testing.T) {
	a := testClientAgent(t, aclEnabled)
	resp := do(t, a, http.MethodPut, "/v1/acl/bootstrap", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var boot api.ACLToken
	must.NoError(t, json.Unmarshal(resp.body, &boot))
	mgmt := boot.SecretID
	waitForKeyring(t, a, mgmt)
	for _, path := range []string{"nomad/jobs/ident", "nomad/jobs/ident/g/worker", "nomad/jobs/other", "app/config"} {
		resp := doAs(t, a, mgmt, http.MethodPut, "/v1/var/"+path, api.Variable{Items: api.VariableItems{"at": path}})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	}

	allocID, token, _ := runningIdentityTask(t, a, mgmt, "ident")
	t.Cleanup(func() { stopAndWait(t, a, mgmt, allocID) })
	for _, path := range []string{"nomad/jobs/ident", "nomad/jobs/ident/g/worker"} {
		resp := doAs(t, a, token, http.MethodGet, "/v1/var/"+path, nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		var v api.Variable
		must.NoError(t, json.Unmarshal(resp.body, &v))
		must.Eq(t, path, v.Items["at"])
	}
	for _, path := range []string{"nomad/jobs/other", "app/config"} {
		resp := doAs(t, a, token, http.MethodGet, "/v1/var/"+path, nil)
		must.Eq(t, http.StatusForbidden, resp.code, must.Sprintf("%s: %s", path, resp))
	}
	resp = doAs(t, a, token, http.MethodPut, "/v1/var/nomad/jobs/ident", api.Variable{Items: api.VariableItems{"k": "v"}})
	must.Eq(t, http.StatusForbidden, resp.code, must.Sprint(resp))
	resp = doAs(t, a, token, http.MethodGet, "/v1/vars?prefix=nomad/jobs/", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "nomad/jobs/ident")
	must.StrNotContains(t, resp.String(), "nomad/jobs/other")
}

// stopAndWait stops the allocation and waits until its task is gone.
func stopAndWait(t *testing.T, a *Agent, mgmt, allocID string) {
	resp := doAs(t, a, mgmt, http.MethodPut, "/v1/allocation/"+allocID+"/stop", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	waitfor.True(t, "the allocation to stop", func() bool {
		var alloc api.Allocation
		resp := doAs(t, a, mgmt, http.MethodGet, "/v1/allocation/"+allocID, nil)
		return json.Unmarshal(resp.body, &alloc) == nil && alloc.ClientStatus != "" && alloc.ClientStatus != "running" && alloc.ClientStatus != "pending"
	})
}

func TestVarRead_notFoundAndBlocking(t *testing.T) {
	a := testAgent(t)
	waitForKeyring(t, a, "")
	resp := do(t, a, http.MethodGet, "/v1/var/no/such", nil)
	must.Eq(t, http.StatusNotFound, resp.code)
	must.StrContains(t, resp.String(), "variable not found")
	resp = do(t, a, http.MethodGet, "/v1/var/bad.path", nil)
	must.Eq(t, http.StatusBadRequest, resp.code)

	resp = do(t, a, http.MethodPut, "/v1/var/w/x", api.Variable{Items: api.VariableItems{"v": "1"}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var first api.Variable
	must.NoError(t, json.Unmarshal(resp.body, &first))
	done := make(chan response, 1)
	go func() {
		done <- do(t, a, http.MethodGet, fmt.Sprintf("/v1/var/w/x?index=%d&wait=30s", first.ModifyIndex), nil)
	}()
	resp = do(t, a, http.MethodPut, "/v1/var/w/x", api.Variable{Items: api.VariableItems{"v": "2"}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	got := <-done
	must.Eq(t, http.StatusOK, got.code, must.Sprint(got))
	must.StrContains(t, got.String(), `"v":"2"`)
}
