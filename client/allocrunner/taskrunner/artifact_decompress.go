package taskrunner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	getter "github.com/hashicorp/go-getter/v2"
)

// archiveDecompressor is a go-getter Decompressor that unpacks with
// Drover's unpacker (archive.go): within the client's decompression
// limits, refusing entries and links that leave the destination, keeping
// no setuid bits, and leaving nothing behind when it fails. go-getter
// picks it by the source's extension or its archive option, and calls it
// on the downloaded file in the client's private staging directory.
type archiveDecompressor struct {
	kind   archiveKind
	limits *ArtifactConfig
}

// artifactDecompressors are the decompressors of every kind the client
// unpacks, keyed by go-getter's names for them.
func artifactDecompressors(limits *ArtifactConfig) map[string]getter.Decompressor {
	m := make(map[string]getter.Decompressor, len(archiveKinds))
	for name, kind := range archiveKinds {
		m[name] = &archiveDecompressor{kind: kind, limits: limits}
	}
	return m
}

func (d *archiveDecompressor) Decompress(dst, src string, dir bool, _ os.FileMode) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("open download: %w", err)
	}
	defer f.Close()
	switch {
	case d.kind == "zip" || d.kind.isTar():
		if !dir {
			return fmt.Errorf("a %s archive unpacks to a directory: use mode \"any\" or \"dir\", or archive = \"false\" to keep it packed", d.kind)
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		root, err := os.OpenRoot(dst)
		if err != nil {
			return err
		}
		defer root.Close()
		return unpackInto(root, ".", f, d.kind, d.limits)
	case dir:
		return fmt.Errorf("a %s file decompresses to one file: use mode \"file\"", d.kind)
	}
	return d.decompressFile(dst, f)
}

// decompressFile writes the single compressed file f, decompressed, to
// dst, within the size limit.
func (d *archiveDecompressor) decompressFile(dst string, f *os.File) error {
	r, closeFn, err := d.kind.decompress(f)
	if err != nil {
		return fmt.Errorf("decompress %s: %w", d.kind, err)
	}
	defer closeFn()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	u := &unpacker{limits: d.limits}
	_, err = io.Copy(out, u.limited(r))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return fmt.Errorf("decompress %s: %w", d.kind, err)
	}
	return nil
}
