package structs

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// validKeyID is what a root key ID is: a UUID in its hex form. It is
// compiled on first use, not by every process of the binary at start-up.
var validKeyID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
})

// ValidRootKeyID reports whether id may name a root key.
func ValidRootKeyID(id string) bool { return validKeyID().MatchString(id) }

// RootKeyAlgorithmEd25519 is the algorithm of Drover's root keys: each is an
// Ed25519 key pair that signs workload identities (EdDSA). The key that
// encrypts variables (AES-256-GCM) is derived from the same seed
// (variables_seal.go).
const RootKeyAlgorithmEd25519 = "ed25519"

// The states of a root key, as Nomad names them. One key of the keyring is
// active and signs; the others are inactive and still verify what they
// signed until they are removed.
const (
	RootKeyStateActive   = "active"
	RootKeyStateInactive = "inactive"
)

// RootKeyMeta describes a root key without its secret: what the keyring
// endpoints list.
type RootKeyMeta struct {
	// KeyID is a UUID; it is the "kid" of the key in the JWKS and in the
	// header of every token it signs.
	KeyID     string
	Algorithm string
	// CreateTime is when the key was made, in Unix nanoseconds.
	CreateTime  int64
	CreateIndex uint64
	ModifyIndex uint64
	State       string
	// PublishTime is when the key was published, in Unix nanoseconds: the
	// key is in the JWKS from its creation, so it is CreateTime.
	PublishTime int64
}

// Active reports whether the key is the one that signs.
func (m *RootKeyMeta) Active() bool { return m.State == RootKeyStateActive }

// RootKey is a root key with its private half. It lives in the servers'
// replicated state (raft log and snapshots) only: no endpoint returns it.
type RootKey struct {
	RootKeyMeta
	// Seed is the Ed25519 private key seed (RFC 8032), 32 bytes.
	Seed []byte
}

// NewRootKey makes a fresh, active Ed25519 root key created at now.
func NewRootKey(now time.Time) (*RootKey, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, fmt.Errorf("generate root key: %w", err)
	}
	return &RootKey{
		RootKeyMeta: RootKeyMeta{
			KeyID:       GenerateUUID(),
			Algorithm:   RootKeyAlgorithmEd25519,
			CreateTime:  now.UnixNano(),
			PublishTime: now.UnixNano(),
			State:       RootKeyStateActive,
		},
		Seed: seed,
	}, nil
}

// Validate reports every problem with the key.
func (k *RootKey) Validate() error {
	var errs []error
	if !ValidRootKeyID(k.KeyID) {
		errs = append(errs, fmt.Errorf("root key ID %q is not a UUID", k.KeyID))
	}
	if k.Algorithm != RootKeyAlgorithmEd25519 {
		errs = append(errs, fmt.Errorf("root key %s: unsupported algorithm %q (Drover's root keys are %s)", k.KeyID, k.Algorithm, RootKeyAlgorithmEd25519))
	}
	if k.State != RootKeyStateActive && k.State != RootKeyStateInactive {
		errs = append(errs, fmt.Errorf("root key %s: unknown state %q", k.KeyID, k.State))
	}
	if len(k.Seed) != ed25519.SeedSize {
		errs = append(errs, fmt.Errorf("root key %s: the seed is %d bytes, not %d", k.KeyID, len(k.Seed), ed25519.SeedSize))
	}
	return errors.Join(errs...)
}

// PrivateKey returns the key's Ed25519 private key.
func (k *RootKey) PrivateKey() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(k.Seed) }

// PublicKey returns the key's Ed25519 public key.
func (k *RootKey) PublicKey() ed25519.PublicKey {
	return k.PrivateKey().Public().(ed25519.PublicKey)
}

// Meta returns a copy of the key's metadata, without its secret.
func (k *RootKey) Meta() *RootKeyMeta {
	m := k.RootKeyMeta
	return &m
}
