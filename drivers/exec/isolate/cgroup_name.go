package isolate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// CgroupName is a task run's cgroup directory name: its ID where that is
// a safe file name, else its readable part and a hash.
func CgroupName(id string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
	if safe == id && len(id) <= 128 && id != "." && id != ".." {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return safe[:min(len(safe), 96)] + "-" + hex.EncodeToString(sum[:8])
}
