package rpc

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// ClusterKeySize is the size of the keys GenerateClusterKey makes.
const ClusterKeySize = 32

// GenerateClusterKey makes a new cluster key, the value of a server's
// encrypt setting: 32 random bytes, base64-encoded, as Nomad's
// `operator keygen` prints them.
func GenerateClusterKey() (string, error) {
	key := make([]byte, ClusterKeySize)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("generate cluster key: %w", err)
	}
	return base64.StdEncoding.EncodeToString(key), nil
}

// ParseClusterKey decodes a cluster key. Keys of 16, 24 and 32 bytes are
// accepted, the sizes Nomad's encrypt setting takes.
func ParseClusterKey(s string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("not base64: %w (make a key with 'drover operator keygen')", err)
	}
	if err := CheckClusterKey(key); err != nil {
		return nil, err
	}
	return key, nil
}

// CheckClusterKey checks the size of a decoded cluster key.
func CheckClusterKey(key []byte) error {
	switch len(key) {
	case 16, 24, 32:
		return nil
	}
	return fmt.Errorf("a key is 16, 24 or 32 bytes, this one %d (make a key with 'drover operator keygen')", len(key))
}

// registrationLabel separates the registration secret from other uses of
// the cluster key.
const registrationLabel = "drover node registration v1"

// RegistrationSecret is the secret a client agent proves to register new
// nodes with the servers that hold key: an HMAC of a fixed label under the
// key. It lets a machine register nodes and nothing more; the cluster key
// cannot be recovered from it.
func RegistrationSecret(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(registrationLabel))
	return m.Sum(nil)
}

// EncodeRegistrationSecret is how the registration secret of key is
// written in a client's registration_secret setting.
func EncodeRegistrationSecret(key []byte) string {
	return base64.StdEncoding.EncodeToString(RegistrationSecret(key))
}

// ParseRegistrationSecret decodes a client's registration_secret setting.
func ParseRegistrationSecret(s string) ([]byte, error) {
	secret, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("not base64: %w (print it with 'drover operator keygen -registration-secret <encrypt key>')", err)
	}
	if len(secret) != sha256.Size {
		return nil, fmt.Errorf("a registration secret is %d bytes, this one %d (print it with 'drover operator keygen -registration-secret <encrypt key>')", sha256.Size, len(secret))
	}
	return secret, nil
}
