package agent

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// jwksLookup finds a key of set by its ID.
func jwksLookup(t *testing.T, set jwks) func(string) ed25519.PublicKey {
	return func(id string) ed25519.PublicKey {
		for _, k := range set.Keys {
			if k.KeyID == id {
				x, err := base64.RawURLEncoding.DecodeString(k.X)
				must.NoError(t, err)
				return x
			}
		}
		return nil
	}
}

// TestWorkloadIdentity_refusesForgedAndExpiredTokens: with ACLs on, a token
// is taken as a workload's only when the keyring signed it, it is valid
// now, its audience is the Nomad API's and its allocation runs.
func TestWorkloadIdentity_refusesForgedAndExpiredTokens(t *testing.T) {
	a, mgmt := aclAgent(t)
	waitForJWKS(t, a, "")
	resp := doAs(t, a, mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": batchJobJSON("victim")})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	node := upsertNode(t, a, structs.GenerateUUID(), "n1")
	alloc := upsertAlloc(t, a, structs.GenerateUUID(), "victim", "", node.ID)
	srv := a.Server()
	key, err := srv.State().ActiveRootKey(nil)
	must.NoError(t, err)

	sign := func(k *structs.RootKey, mutate func(*structs.IdentityClaims)) string {
		c := structs.NewIdentityClaims(alloc, "maxrun", nil, "global", time.Now())
		if mutate != nil {
			mutate(c)
		}
		token, err := structs.SignIdentity(k, c)
		must.NoError(t, err)
		return token
	}
	good := sign(key, nil)
	resp = doAs(t, a, good, http.MethodGet, "/v1/allocation/"+alloc.ID, nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))

	forger, err := structs.NewRootKey(time.Now())
	must.NoError(t, err)
	forger.KeyID = key.KeyID
	parts := strings.Split(good, ".")
	otherJob := strings.Split(sign(key, func(c *structs.IdentityClaims) { c.JobID = "other" }), ".")

	for name, token := range map[string]string{
		"signed by another key":   sign(forger, nil),
		"claims swapped":          parts[0] + "." + otherJob[1] + "." + parts[2],
		"expired":                 sign(key, func(c *structs.IdentityClaims) { c.Expiry = time.Now().Add(-time.Minute).Unix() }),
		"not yet valid":           sign(key, func(c *structs.IdentityClaims) { c.NotBefore = time.Now().Add(time.Hour).Unix() }),
		"another audience":        sign(key, func(c *structs.IdentityClaims) { c.Audience = []string{"vault.io"} }),
		"an allocation not there": sign(key, func(c *structs.IdentityClaims) { c.AllocationID = structs.GenerateUUID() }),
		"no signature":            parts[0] + "." + parts[1] + ".",
	} {
		t.Run(name, func(t *testing.T) {
			resp := doAs(t, a, token, http.MethodGet, "/v1/allocation/"+alloc.ID, nil)
			must.Eq(t, http.StatusForbidden, resp.code, must.Sprint(resp))
			must.StrNotContains(t, resp.String(), token)
		})
	}
}

// TestWorkloadIdentity_jobRegisterChecksTheBlock: what Drover does not
// sign is refused at the door, naming the task.
func TestWorkloadIdentity_jobRegisterChecksTheBlock(t *testing.T) {
	a := testAgent(t, unscheduled)
	for name, tc := range map[string]struct {
		field string
		value any
		want  string
	}{
		"named":        {"Identity", map[string]any{"Name": "vault_default", "Env": true}, `Drover signs the default identity only (no name, or "default"), not "vault_default"`},
		"negative ttl": {"Identity", map[string]any{"File": true, "TTL": -1}, "ttl must not be negative"},
		"empty aud":    {"Identity", map[string]any{"Env": true, "Audience": []string{""}}, "aud[0] must be 1 to 256 bytes"},
		"filepath":     {"Identity", map[string]any{"Env": true, "Filepath": "x"}, "Filepath"},
		"identities":   {"Identities", []any{map[string]any{"Name": "vault_default"}}, "Identities"},
	} {
		t.Run(name, func(t *testing.T) {
			job := batchJobJSON("ident-" + strings.ReplaceAll(name, " ", "-"))
			job["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)[tc.field] = tc.value
			resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
			must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
			must.StrContains(t, resp.String(), tc.want)
		})
	}
	job := batchJobJSON("ident-ok")
	job["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)["Identity"] = map[string]any{"Env": true, "TTL": int64(time.Hour)}
	registerJob(t, a, job)
	var got api.Job
	get(t, a, "/v1/job/ident-ok", &got)
	must.Eq(t, &api.WorkloadIdentity{Env: true, TTL: time.Hour}, got.TaskGroups[0].Tasks[0].Identity)
}
