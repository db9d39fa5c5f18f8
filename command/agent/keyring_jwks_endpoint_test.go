package agent

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

// waitForJWKS waits until the agent publishes a key, as Nomad's API test
// harness does before it runs a test, and returns the key set.
func waitForJWKS(t *testing.T, a *Agent, secret string) jwks {
	t.Helper()
	var set jwks
	waitfor.True(t, "a key in the JWKS", func() bool {
		resp := doAs(t, a, secret, http.MethodGet, jwksPath, nil)
		set = jwks{}
		return resp.code == http.StatusOK && json.Unmarshal(resp.body, &set) == nil && len(set.Keys) > 0
	})
	return set
}

func TestJWKS_publishesTheRootKey(t *testing.T) {
	a := testAgent(t)
	set := waitForJWKS(t, a, "")
	must.Len(t, 1, set.Keys)
	k := set.Keys[0]
	must.Eq(t, jwk{KeyType: "OKP", Curve: "Ed25519", X: k.X, KeyID: k.KeyID, Algorithm: "EdDSA", Use: "sig"}, k)

	// The published key verifies what the server's root key signs.
	root, err := a.Server().State().ActiveRootKey(nil)
	must.NoError(t, err)
	must.Eq(t, root.KeyID, k.KeyID)
	x, err := base64.RawURLEncoding.DecodeString(k.X)
	must.NoError(t, err)
	msg := []byte("signed by the keyring")
	must.True(t, ed25519.Verify(ed25519.PublicKey(x), msg, ed25519.Sign(root.PrivateKey(), msg)))

	resp := do(t, a, http.MethodGet, jwksPath, nil)
	must.Eq(t, "max-age=60", resp.header.Get("Cache-Control"))
	must.NotEq(t, "", resp.header.Get("X-Nomad-Index"))
}

func TestJWKS_needsNoTokenWithACLs(t *testing.T) {
	a, _ := aclAgent(t)
	set := waitForJWKS(t, a, "")
	must.Len(t, 1, set.Keys)
	resp := doAs(t, a, "not-a-token", http.MethodGet, jwksPath, nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
}

func TestOIDCConfig_pointsAtTheJWKS(t *testing.T) {
	a := testAgent(t)
	var cfg oidcConfig
	get(t, a, oidcConfigPath, &cfg)
	base := "http://" + a.HTTPAddr()
	must.Eq(t, oidcConfig{
		Issuer:            base,
		JWKSURI:           base + jwksPath,
		SigningAlgorithms: []string{"EdDSA"},
		ResponseTypes:     []string{"code"},
		SubjectTypes:      []string{"public"},
	}, cfg)
}
