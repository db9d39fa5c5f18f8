package nomad

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
)

// clusterKeySize is the size of the keys GenerateClusterKey makes.
const clusterKeySize = 32

// GenerateClusterKey makes a new cluster key, the value of a server's
// encrypt setting: 32 random bytes, base64-encoded, as Nomad's
// `operator keygen` prints them.
func GenerateClusterKey() (string, error) {
	key := make([]byte, clusterKeySize)
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
	switch len(key) {
	case 16, 24, 32:
		return key, nil
	}
	return nil, fmt.Errorf("a key is 16, 24 or 32 bytes, this one %d (make a key with 'drover operator keygen')", len(key))
}
