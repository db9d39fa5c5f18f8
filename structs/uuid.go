package structs

import (
	"crypto/rand"
	"fmt"
)

// GenerateUUID returns a random (version 4) UUID in its 8-4-4-4-12 hex form.
// It reads crypto/rand, which does not fail on the platforms Go supports.
func GenerateUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// ShortID returns the first 8 characters of an ID, as the CLI shows it, or
// the whole ID when it is shorter.
func ShortID(id string) string {
	const shortLen = 8
	if len(id) <= shortLen {
		return id
	}
	return id[:shortLen]
}
