package agent

import (
	"net/http"
	"strings"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

// waitForKeys waits until the keyring lists n keys, through the official
// client, and returns them.
func waitForKeys(t *testing.T, kr *nomadapi.Keyring, n int) []*nomadapi.RootKeyMeta {
	t.Helper()
	var keys []*nomadapi.RootKeyMeta
	waitfor.True(t, "the keyring's keys", func() bool {
		var err error
		keys, _, err = kr.List(nil)
		return err == nil && len(keys) == n
	})
	return keys
}

// TestKeyring_officialClient runs what Nomad's own keyring test does, with
// Nomad's client: list the first key, rotate, remove the old key.
func TestKeyring_officialClient(t *testing.T) {
	a := testAgent(t)
	kr := officialClient(t, a).Keyring()
	keys := waitForKeys(t, kr, 1)
	old := keys[0]
	must.Eq(t, nomadapi.RootKeyStateActive, old.State)
	must.Eq(t, "ed25519", string(old.Algorithm))
	must.Positive(t, old.CreateTime)
	must.Eq(t, old.CreateTime, old.PublishTime)

	key, wm, err := kr.Rotate(nil, nil)
	must.NoError(t, err)
	must.NotNil(t, key)
	must.Positive(t, wm.LastIndex)
	// As Nomad's, the answer's key carries no index (Nomad's own test
	// waits for a list past it): X-Nomad-Index does.
	must.Eq(t, 0, key.CreateIndex)

	keys, qm, err := kr.List(&nomadapi.QueryOptions{WaitIndex: key.CreateIndex})
	must.NoError(t, err)
	must.Eq(t, wm.LastIndex, qm.LastIndex)
	must.Len(t, 2, keys)
	must.Eq(t, old.KeyID, keys[0].KeyID)
	must.Eq(t, nomadapi.RootKeyStateInactive, keys[0].State)
	must.Eq(t, key.KeyID, keys[1].KeyID)
	must.Eq(t, nomadapi.RootKeyStateActive, keys[1].State)

	// Both keys verify: both are in the JWKS.
	var set jwks
	get(t, a, jwksPath, &set)
	must.Eq(t, []string{old.KeyID, key.KeyID}, ids(set.Keys, func(k jwk) string { return k.KeyID }))

	// The active key cannot go.
	_, err = kr.Delete(&nomadapi.KeyringDeleteOptions{KeyID: key.KeyID, Force: true}, nil)
	must.ErrorContains(t, err, "400")
	must.ErrorContains(t, err, "active root key cannot be removed")

	wm, err = kr.Delete(&nomadapi.KeyringDeleteOptions{KeyID: old.KeyID, Force: true}, nil)
	must.NoError(t, err)
	must.Greater(t, qm.LastIndex, wm.LastIndex)
	keys, _, err = kr.List(&nomadapi.QueryOptions{WaitIndex: key.CreateIndex})
	must.NoError(t, err)
	must.Len(t, 1, keys)
	must.Eq(t, key.KeyID, keys[0].KeyID)

	_, err = kr.Delete(&nomadapi.KeyringDeleteOptions{KeyID: old.KeyID}, nil)
	must.ErrorContains(t, err, "404")
}

// TestKeyring_removeKeepsAKeyRunningAllocationsNeed: without force, a key
// that was active when a running allocation was created stays.
func TestKeyring_removeKeepsAKeyRunningAllocationsNeed(t *testing.T) {
	a := testAgent(t, unscheduled)
	kr := officialClient(t, a).Keyring()
	old := waitForKeys(t, kr, 1)[0]
	registerJob(t, a, batchJobJSON("holder"))
	upsertNode(t, a, "9a3c1c9e-5f0f-4c1e-9d7e-000000000001", "n1")
	alloc := upsertAlloc(t, a, "9a3c1c9e-5f0f-4c1e-9d7e-0000000000a1", "holder", "", "9a3c1c9e-5f0f-4c1e-9d7e-000000000001")
	_, _, err := kr.Rotate(nil, nil)
	must.NoError(t, err)

	_, err = kr.Delete(&nomadapi.KeyringDeleteOptions{KeyID: old.KeyID}, nil)
	must.ErrorContains(t, err, "400")
	must.ErrorContains(t, err, alloc.ID)
	_, err = kr.Delete(&nomadapi.KeyringDeleteOptions{KeyID: old.KeyID, Force: true}, nil)
	must.NoError(t, err)
}

func TestKeyring_refusesWhatDroverDoesNotDo(t *testing.T) {
	a := testAgent(t)
	for _, query := range []string{"algo=aes256-gcm", "publish_time=1700000000000000000", "full=maybe"} {
		resp := do(t, a, http.MethodPut, keyringRotatePath+"?"+query, nil)
		must.Eq(t, http.StatusBadRequest, resp.code, must.Sprintf("%s: %s", query, resp))
		name, _, _ := strings.Cut(query, "=")
		must.StrContains(t, resp.String(), name)
	}
	resp := do(t, a, http.MethodPut, keyringRotatePath+"?full=true&algo=ed25519", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))

	resp = do(t, a, http.MethodDelete, "/v1/operator/keyring/key/not-a-uuid", nil)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "not a UUID")
}
