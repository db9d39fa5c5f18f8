package agent

import (
	"encoding/base64"
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// Paths of the OIDC discovery endpoints, at the root as the standards
// place them (RFC 8414, OpenID Connect Discovery 1.0).
const (
	jwksPath       = "/.well-known/jwks.json"
	oidcConfigPath = "/.well-known/openid-configuration"
)

// jwksCacheControl lets verifiers keep the key set for a minute: a rotated
// key is published as it is made, and an old one stays published while it
// verifies, so a short cache is enough.
const jwksCacheControl = "max-age=60"

// jwk is one public key of the JWKS (RFC 7517), an Ed25519 key as RFC
// 8037 writes it.
type jwk struct {
	KeyType   string `json:"kty"`
	Curve     string `json:"crv"`
	X         string `json:"x"`
	KeyID     string `json:"kid"`
	Algorithm string `json:"alg"`
	Use       string `json:"use"`
}

// jwks is the key set document.
type jwks struct {
	Keys []jwk `json:"keys"`
}

// jwksRead serves GET /.well-known/jwks.json: the public keys that verify
// workload identities, from this server's own state (a follower answers
// too, without asking the leader), readable without a token as in Nomad.
func (s *HTTPServer) jwksRead(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	keys, meta, err := srv.KeyringPublicKeys(r.Context(), nomad.QueryOptions{AllowStale: true})
	if err != nil {
		return nil, err
	}
	httpserver.SetQueryMeta(w, meta)
	w.Header().Set("Cache-Control", jwksCacheControl)
	out := jwks{Keys: make([]jwk, 0, len(keys))}
	for _, k := range keys {
		out.Keys = append(out.Keys, jwk{
			KeyType:   "OKP",
			Curve:     "Ed25519",
			X:         base64.RawURLEncoding.EncodeToString(k.Key),
			KeyID:     k.KeyID,
			Algorithm: "EdDSA",
			Use:       "sig",
		})
	}
	return out, nil
}

// oidcConfig is the OpenID provider metadata that points verifiers at the
// JWKS.
type oidcConfig struct {
	Issuer            string   `json:"issuer"`
	JWKSURI           string   `json:"jwks_uri"`
	SigningAlgorithms []string `json:"id_token_signing_alg_values_supported"`
	ResponseTypes     []string `json:"response_types_supported"`
	SubjectTypes      []string `json:"subject_types_supported"`
}

// oidcConfigRead serves GET /.well-known/openid-configuration. The issuer
// is the address the request reached this server at, so that the JWKS it
// names is the one this server serves.
func (s *HTTPServer) oidcConfigRead(w http.ResponseWriter, r *http.Request) (any, error) {
	if _, err := s.requireServer(); err != nil {
		return nil, err
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	issuer := scheme + "://" + r.Host
	w.Header().Set("Cache-Control", jwksCacheControl)
	return oidcConfig{
		Issuer:            issuer,
		JWKSURI:           issuer + jwksPath,
		SigningAlgorithms: []string{"EdDSA"},
		ResponseTypes:     []string{"code"},
		SubjectTypes:      []string{"public"},
	}, nil
}
