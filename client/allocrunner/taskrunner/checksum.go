package taskrunner

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"io"

	"github.com/drover-io/drover/structs"
)

// checksum is an artifact's expected digest, from its `checksum` option
// "<type>:<hex>".
type checksum struct {
	kind string
	want []byte
	hash func() hash.Hash
}

var checksumKinds = map[string]func() hash.Hash{
	"md5":    md5.New,
	"sha1":   sha1.New,
	"sha256": sha256.New,
	"sha512": sha512.New,
}

// parseChecksum parses the checksum option (structs.ParseArtifactChecksum
// has the rules); an empty option is no checksum.
func parseChecksum(opt string) (*checksum, error) {
	if opt == "" {
		return nil, nil
	}
	kind, want, err := structs.ParseArtifactChecksum(opt)
	if err != nil {
		return nil, err
	}
	newHash, ok := checksumKinds[kind]
	if !ok {
		return nil, fmt.Errorf("checksum type %q has no hash on this client", kind)
	}
	return &checksum{kind: kind, want: want, hash: newHash}, nil
}

// verify checks the file f, from its start, against the checksum.
func (c *checksum) verify(f io.ReadSeeker) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("verify checksum: %w", err)
	}
	h := c.hash()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("verify checksum: %w", err)
	}
	if got := h.Sum(nil); !bytes.Equal(got, c.want) {
		return fmt.Errorf("checksum mismatch: want %s:%x, got %s:%x", c.kind, c.want, c.kind, got)
	}
	return nil
}
