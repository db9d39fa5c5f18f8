package nomad

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
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
