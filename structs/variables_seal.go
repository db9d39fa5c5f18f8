package structs

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
)

// A variable's items are sealed with AES-256-GCM under a key derived from
// a root key's secret seed with HKDF-SHA256. The seed also makes the key
// that signs workload identities; the distinct HKDF label keeps the two
// uses apart, and the variable's namespace and path, bound in as
// additional data, keep a sealed value from being moved to another
// variable.

// variablesKeyLabel is the HKDF info of the variables key of a root key.
const variablesKeyLabel = "drover variables aes-256-gcm v1"

// ErrVariableKeyMismatch is wrapped by an attempt to open a variable
// with a root key other than the one that sealed it.
var ErrVariableKeyMismatch = errors.New("variable sealed by another root key")

// variablesAEAD is the cipher that seals variables under key.
func variablesAEAD(key *RootKey) (cipher.AEAD, error) {
	secret, err := hkdf.Key(sha256.New, key.Seed, nil, variablesKeyLabel+" "+key.KeyID, 32)
	if err != nil {
		return nil, fmt.Errorf("derive the variables key of root key %s: %w", key.KeyID, err)
	}
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, fmt.Errorf("variables cipher of root key %s: %w", key.KeyID, err)
	}
	return cipher.NewGCM(block)
}

// variableAAD binds a sealed value to its variable.
func variableAAD(namespace, path string) []byte {
	return []byte(namespace + "\x00" + path)
}

// SealVariable returns v with its items sealed by key.
func SealVariable(key *RootKey, v *VariableDecrypted) (*VariableEncrypted, error) {
	aead, err := variablesAEAD(key)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(v.Items)
	if err != nil {
		return nil, fmt.Errorf("encode the items of variable %q: %w", v.Path, err)
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("variable nonce: %w", err)
	}
	sealed := aead.Seal(nonce, nonce, plain, variableAAD(v.Namespace, v.Path))
	return &VariableEncrypted{
		VariableMetadata: v.VariableMetadata,
		VariableData:     VariableData{Data: sealed, KeyID: key.KeyID},
	}, nil
}

// OpenVariable returns v with its items in clear, opened with key, which
// must be the root key that sealed them.
func OpenVariable(key *RootKey, v *VariableEncrypted) (*VariableDecrypted, error) {
	if key.KeyID != v.KeyID {
		return nil, fmt.Errorf("open variable %q: %w %s, not %s", v.Path, ErrVariableKeyMismatch, v.KeyID, key.KeyID)
	}
	aead, err := variablesAEAD(key)
	if err != nil {
		return nil, err
	}
	n := aead.NonceSize()
	if len(v.Data) < n+aead.Overhead() {
		return nil, fmt.Errorf("open variable %q: sealed data is %d bytes, too short", v.Path, len(v.Data))
	}
	plain, err := aead.Open(nil, v.Data[:n], v.Data[n:], variableAAD(v.Namespace, v.Path))
	if err != nil {
		return nil, fmt.Errorf("open variable %q with root key %s: %w", v.Path, key.KeyID, err)
	}
	items := VariableItems{}
	if err := json.Unmarshal(plain, &items); err != nil {
		return nil, fmt.Errorf("decode the items of variable %q: %w", v.Path, err)
	}
	return &VariableDecrypted{VariableMetadata: v.Metadata(), Items: items}, nil
}
