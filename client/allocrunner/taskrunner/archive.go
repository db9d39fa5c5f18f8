package taskrunner

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/drover-io/drover/client/allocdir"
)

// archiveKind is how a downloaded artifact is unpacked.
type archiveKind string

const (
	archiveNone  archiveKind = ""
	archiveTar   archiveKind = "tar"
	archiveTarGz archiveKind = "tar.gz"
	archiveZip   archiveKind = "zip"
)

// archiveKindOf picks the kind from the `archive` option when set ("false"
// disables unpacking; "tar", "tar.gz", "tgz" or "zip" name the kind), else
// from the extension of the source path.
func archiveKindOf(srcPath, opt string) (archiveKind, error) {
	switch strings.ToLower(opt) {
	case "":
	case "false":
		return archiveNone, nil
	case "tar":
		return archiveTar, nil
	case "tar.gz", "tgz":
		return archiveTarGz, nil
	case "zip":
		return archiveZip, nil
	default:
		return archiveNone, fmt.Errorf("archive option %q is not supported (use false, tar, tar.gz, tgz or zip)", opt)
	}
	name := strings.ToLower(srcPath)
	switch {
	case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".tgz"):
		return archiveTarGz, nil
	case strings.HasSuffix(name, ".tar"):
		return archiveTar, nil
	case strings.HasSuffix(name, ".zip"):
		return archiveZip, nil
	}
	return archiveNone, nil
}

// unpackInto unpacks the archive at path into dest, a directory relative to
// root. Entries that would land outside dest are refused, and every write
// goes through root, so a link in the tree cannot lead a write out of it.
func unpackInto(root *os.Root, dest, path string, kind archiveKind) error {
	if err := root.MkdirAll(dest, 0o755); err != nil {
		return fmt.Errorf("create destination: %w", err)
	}
	destRoot, err := root.OpenRoot(dest)
	if err != nil {
		return fmt.Errorf("open destination: %w", err)
	}
	defer destRoot.Close()

	switch kind {
	case archiveZip:
		err = unpackZip(destRoot, path)
	case archiveTarGz, archiveTar:
		err = unpackTarFile(destRoot, path, kind == archiveTarGz)
	default:
		err = fmt.Errorf("unknown archive kind %q", kind)
	}
	if err != nil {
		return fmt.Errorf("unpack %s archive: %w", kind, err)
	}
	return nil
}

func unpackTarFile(root *os.Root, path string, gzipped bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if gzipped {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		defer gz.Close()
		r = gz
	}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name, err := entryName(hdr.Name)
		if err != nil {
			return err
		}
		if name == "." {
			continue
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = root.MkdirAll(name, entryMode(hdr.FileInfo().Mode())|0o700)
		case tar.TypeReg:
			err = writeEntry(root, name, hdr.FileInfo().Mode(), tr)
		case tar.TypeSymlink:
			err = linkEntry(root, name, hdr.Linkname, true)
		case tar.TypeLink:
			err = linkEntry(root, name, hdr.Linkname, false)
		case tar.TypeXGlobalHeader:
			continue
		default:
			return fmt.Errorf("entry %q: type %q is not supported", hdr.Name, string(hdr.Typeflag))
		}
		if err != nil {
			return err
		}
	}
}

func unpackZip(root *os.Root, path string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if err := unpackZipEntry(root, zf); err != nil {
			return err
		}
	}
	return nil
}

func unpackZipEntry(root *os.Root, zf *zip.File) error {
	name, err := entryName(zf.Name)
	if err != nil || name == "." {
		return err
	}
	mode := zf.Mode()
	if mode.IsDir() {
		return root.MkdirAll(name, entryMode(mode)|0o700)
	}
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("entry %q: %w", zf.Name, err)
	}
	defer rc.Close()
	if mode&fs.ModeSymlink != 0 {
		target, err := io.ReadAll(io.LimitReader(rc, 4096))
		if err != nil {
			return fmt.Errorf("entry %q: %w", zf.Name, err)
		}
		return linkEntry(root, name, string(target), true)
	}
	if !mode.IsRegular() {
		return fmt.Errorf("entry %q: file mode %s is not supported", zf.Name, mode)
	}
	return writeEntry(root, name, mode, rc)
}

// entryName cleans an archive entry's name and refuses one that is
// absolute or climbs out of the destination.
func entryName(raw string) (string, error) {
	name := filepath.Clean(filepath.FromSlash(raw))
	if filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return "", fmt.Errorf("entry %q: %w", raw, allocdir.ErrOutsideDir)
	}
	return name, nil
}

// entryMode keeps an entry's permission bits and drops setuid and friends.
func entryMode(m fs.FileMode) fs.FileMode {
	return m.Perm()
}

func writeEntry(root *os.Root, name string, mode fs.FileMode, r io.Reader) error {
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	// An entry replaces a file of the same name, never writes through a
	// link that an earlier entry made.
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, entryMode(mode)|0o600)
	if err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	return nil
}

// linkEntry makes a symbolic (or hard) link entry. The target must stay in
// the destination: relative, and not climbing out of it from where the
// link is.
func linkEntry(root *os.Root, name, target string, symbolic bool) error {
	resolved := filepath.Join(filepath.Dir(name), filepath.FromSlash(target))
	if !symbolic {
		resolved = filepath.FromSlash(target)
	}
	if target == "" || filepath.IsAbs(target) || !filepath.IsLocal(filepath.Clean(resolved)) {
		return fmt.Errorf("entry %q: link target %q: %w", name, target, allocdir.ErrOutsideDir)
	}
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	var err error
	if symbolic {
		err = root.Symlink(target, name)
	} else {
		err = root.Link(filepath.Clean(resolved), name)
	}
	if err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	return nil
}
