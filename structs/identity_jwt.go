package structs

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A workload identity is a JSON Web Token (RFC 7519) in the JWS compact
// serialisation (RFC 7515), signed with EdDSA over Ed25519 (RFC 8037):
// header.claims.signature, each part base64url without padding.

// maxIdentityTokenLen bounds a token before it is decoded: far more than
// any claims Drover signs take.
const maxIdentityTokenLen = 8 << 10

// identityClockSkew is how far apart the clocks of the signing server and
// the verifying one may be.
const identityClockSkew = 5 * time.Second

// ErrInvalidIdentity is wrapped by every refusal of a token as a workload
// identity.
var ErrInvalidIdentity = errors.New("invalid workload identity")

// jwtHeader is the JOSE header of a token.
type jwtHeader struct {
	Algorithm string `json:"alg"`
	KeyID     string `json:"kid"`
	Type      string `json:"typ"`
}

// LooksLikeJWT reports whether secret has the shape of a token (three
// dot-separated parts, the first a JSON object): what tells a workload
// identity from an ACL token's secret, a UUID.
func LooksLikeJWT(secret string) bool {
	return strings.Count(secret, ".") == 2 && strings.HasPrefix(secret, "eyJ")
}

// SignIdentity signs claims with key.
func SignIdentity(key *RootKey, claims *IdentityClaims) (string, error) {
	header, err := json.Marshal(jwtHeader{Algorithm: "EdDSA", KeyID: key.KeyID, Type: "JWT"})
	if err != nil {
		return "", fmt.Errorf("encode identity header: %w", err)
	}
	body, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("encode identity claims: %w", err)
	}
	enc := base64.RawURLEncoding
	signed := enc.EncodeToString(header) + "." + enc.EncodeToString(body)
	sig := ed25519.Sign(key.PrivateKey(), []byte(signed))
	return signed + "." + enc.EncodeToString(sig), nil
}

// VerifyIdentity checks token's signature with the public key publicKey
// returns for its key ID (nil: no such key), and that it is valid at now,
// and returns its claims. Every refusal wraps ErrInvalidIdentity and says
// why, never quoting the token.
func VerifyIdentity(token string, publicKey func(keyID string) ed25519.PublicKey, now time.Time) (*IdentityClaims, error) {
	if len(token) > maxIdentityTokenLen {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalidIdentity, maxIdentityTokenLen)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%w: not a signed JWT (header.claims.signature)", ErrInvalidIdentity)
	}
	var header jwtHeader
	if err := decodeJWTPart(parts[0], &header); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrInvalidIdentity, err)
	}
	if header.Algorithm != "EdDSA" {
		return nil, fmt.Errorf("%w: algorithm %q, not EdDSA", ErrInvalidIdentity, header.Algorithm)
	}
	key := publicKey(header.KeyID)
	if key == nil {
		return nil, fmt.Errorf("%w: signed by key %q, which the keyring does not hold", ErrInvalidIdentity, header.KeyID)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !ed25519.Verify(key, []byte(parts[0]+"."+parts[1]), sig) {
		return nil, fmt.Errorf("%w: bad signature", ErrInvalidIdentity)
	}
	claims := new(IdentityClaims)
	if err := decodeJWTPart(parts[1], claims); err != nil {
		return nil, fmt.Errorf("%w: claims: %v", ErrInvalidIdentity, err)
	}
	if nbf := time.Unix(claims.NotBefore, 0); now.Add(identityClockSkew).Before(nbf) {
		return nil, fmt.Errorf("%w: not valid before %s", ErrInvalidIdentity, nbf.UTC().Format(time.RFC3339))
	}
	if claims.Expiry != 0 {
		if exp := time.Unix(claims.Expiry, 0); !now.Add(-identityClockSkew).Before(exp) {
			return nil, fmt.Errorf("%w: expired at %s", ErrInvalidIdentity, exp.UTC().Format(time.RFC3339))
		}
	}
	if claims.AllocationID == "" || claims.Namespace == "" || claims.JobID == "" || claims.Task == "" {
		return nil, fmt.Errorf("%w: not a workload's identity (no allocation, namespace, job or task claim)", ErrInvalidIdentity)
	}
	return claims, nil
}

// decodeJWTPart decodes one base64url part of a token as strict JSON.
func decodeJWTPart(part string, out any) error {
	data, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return fmt.Errorf("not base64url: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("not the expected JSON: %w", err)
	}
	return nil
}
