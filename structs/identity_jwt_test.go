package structs

import (
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func testIdentityKey(t *testing.T) *RootKey {
	t.Helper()
	k, err := NewRootKey(time.Now())
	must.NoError(t, err)
	return k
}

func keyLookup(keys ...*RootKey) func(string) ed25519.PublicKey {
	return func(id string) ed25519.PublicKey {
		for _, k := range keys {
			if k.KeyID == id {
				return k.PublicKey()
			}
		}
		return nil
	}
}

func testClaims(ttl time.Duration, now time.Time) *IdentityClaims {
	alloc := &Allocation{ID: GenerateUUID(), Namespace: "default", JobID: "web", TaskGroup: "g"}
	return NewIdentityClaims(alloc, "t", &WorkloadIdentity{TTL: ttl}, "global", now)
}

func TestIdentity_signAndVerify(t *testing.T) {
	key := testIdentityKey(t)
	now := time.Unix(1_800_000_000, 0)
	claims := testClaims(time.Hour, now)
	token, err := SignIdentity(key, claims)
	must.NoError(t, err)
	must.True(t, LooksLikeJWT(token))
	must.False(t, LooksLikeJWT(GenerateUUID()))

	got, err := VerifyIdentity(token, keyLookup(key), now.Add(time.Minute))
	must.NoError(t, err)
	must.Eq(t, claims, got)
	must.Eq(t, "global:default:web:g:t:default", got.Subject)
	must.Eq(t, []string{"nomad.io"}, got.Audience)
	must.Eq(t, now.Add(time.Hour).Unix(), got.Expiry)

	header, _, _ := strings.Cut(token, ".")
	data, err := base64.RawURLEncoding.DecodeString(header)
	must.NoError(t, err)
	must.Eq(t, `{"alg":"EdDSA","kid":"`+key.KeyID+`","typ":"JWT"}`, string(data))
}

func TestIdentity_refusals(t *testing.T) {
	key, other := testIdentityKey(t), testIdentityKey(t)
	now := time.Unix(1_800_000_000, 0)
	token, err := SignIdentity(key, testClaims(time.Hour, now))
	must.NoError(t, err)
	parts := strings.Split(token, ".")
	forgedClaims := testClaims(time.Hour, now)
	forgedClaims.JobID = "other"
	forged, err := SignIdentity(key, forgedClaims)
	must.NoError(t, err)
	// The other key signs under the first key's ID.
	impostor := &RootKey{RootKeyMeta: RootKeyMeta{KeyID: key.KeyID}, Seed: other.Seed}
	byImpostor, err := SignIdentity(impostor, testClaims(time.Hour, now))
	must.NoError(t, err)
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"` + key.KeyID + `"}`))

	for name, tc := range map[string]struct {
		token string
		at    time.Time
		want  string
	}{
		"claims swapped": {parts[0] + "." + strings.Split(forged, ".")[1] + "." + parts[2], now, "bad signature"},
		"another key":    {byImpostor, now, "bad signature"},
		"unknown key":    {token, now, "does not hold"},
		"alg none":       {none + "." + parts[1] + ".", now, `algorithm "none"`},
		"expired":        {token, now.Add(time.Hour + time.Minute), "expired at"},
		"not yet valid":  {token, now.Add(-time.Minute), "not valid before"},
		"two parts":      {parts[0] + "." + parts[1], now, "not a signed JWT"},
		"garbage":        {"eyJ.x.y", now, "header"},
		"huge":           {strings.Repeat("a", 9000), now, "longer than"},
	} {
		t.Run(name, func(t *testing.T) {
			lookup := keyLookup(key)
			if name == "unknown key" {
				lookup = keyLookup(other)
			}
			_, err := VerifyIdentity(tc.token, lookup, tc.at)
			must.ErrorIs(t, err, ErrInvalidIdentity)
			must.ErrorContains(t, err, tc.want)
		})
	}
}

func TestIdentity_noTTLNoExpiry(t *testing.T) {
	key := testIdentityKey(t)
	now := time.Unix(1_800_000_000, 0)
	token, err := SignIdentity(key, testClaims(0, now))
	must.NoError(t, err)
	claims, err := VerifyIdentity(token, keyLookup(key), now.Add(1000*time.Hour))
	must.NoError(t, err)
	must.Eq(t, 0, claims.Expiry)
}
