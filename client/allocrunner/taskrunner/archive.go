package taskrunner

import (
	"archive/tar"
	"archive/zip"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/drover-io/drover/client/allocdir"
)

// archiveKind is how a downloaded artifact is unpacked: named as
// go-getter names its decompressors, by the file's extension.
type archiveKind string

// The kinds the client unpacks. A tar in any compression and a zip
// unpack to a directory; a single compressed file to one file. xz is
// not among them: its header sets the decoder's dictionary size, up to
// gigabytes of memory, whatever the limits.
var archiveKinds = map[string]archiveKind{
	"tar": "tar", "tar.gz": "tar.gz", "tgz": "tar.gz", "tar.bz2": "tar.bz2", "tbz2": "tar.bz2",
	"tar.zst": "tar.zst", "tzst": "tar.zst", "zip": "zip",
	"gz": "gz", "bz2": "bz2", "zst": "zst",
}

// isTar reports whether the kind unpacks to a directory.
func (k archiveKind) isTar() bool { return strings.HasPrefix(string(k), "tar") }

// decompress wraps r, compressed as the kind says (its last part: gz,
// bz2, zst), in a reader of its uncompressed bytes. close releases the
// decoder.
func (k archiveKind) decompress(r io.Reader) (out io.Reader, closeFn func(), err error) {
	switch k {
	case "tar", "zip":
		return r, func() {}, nil
	case "tar.gz", "gz":
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return gz, func() { gz.Close() }, nil
	case "tar.bz2", "bz2":
		return bzip2.NewReader(r), func() {}, nil
	case "tar.zst", "zst":
		// A frame may ask for a window of up to gigabytes: refuse more
		// than a real archive needs.
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderMaxMemory(zstdMaxWindow))
		if err != nil {
			return nil, nil, err
		}
		return zr, zr.Close, nil
	}
	return nil, nil, fmt.Errorf("unknown archive kind %q", k)
}

// zstdMaxWindow bounds a zstd decoder's memory (zstd's own default
// largest window for decoders is 8 MiB; this allows what `zstd --long`
// makes).
const zstdMaxWindow = 128 << 20

// unpackInto unpacks the archive f into dest, a directory relative to
// root. Entries that would land outside dest are refused, and every write
// goes through root, so a link in the tree cannot lead a write out of it.
// An archive that unpacks to more bytes or entries than limits allow is
// stopped there; what it had unpacked is removed, as after any failure.
func unpackInto(root *os.Root, dest string, f *os.File, kind archiveKind, limits *ArtifactConfig) error {
	if err := root.MkdirAll(dest, 0o755); err != nil {
		return fmt.Errorf("create destination: %w", err)
	}
	destRoot, err := root.OpenRoot(dest)
	if err != nil {
		return fmt.Errorf("open destination: %w", err)
	}
	defer destRoot.Close()

	if limits == nil {
		limits = DefaultArtifactConfig()
	}
	u := &unpacker{root: destRoot, limits: limits}
	switch {
	case kind == "zip":
		err = u.zip(f)
	case kind.isTar():
		err = u.tarFile(f, kind)
	default:
		err = fmt.Errorf("a %s file decompresses to one file, not a directory", kind)
	}
	if err != nil {
		u.undo()
		return fmt.Errorf("unpack %s archive: %w", kind, err)
	}
	return nil
}

// unpacker unpacks one archive into root, counting what it unpacks
// against the limits and remembering what it made, so that a failed
// unpack leaves nothing of it behind.
type unpacker struct {
	root    *os.Root
	limits  *ArtifactConfig
	bytes   int64
	entries int
	made    []string // paths made, in order
}

// entry counts one more entry of the archive.
func (u *unpacker) entry() error {
	u.entries++
	if max := u.limits.DecompressionFileCountLimit; max > 0 && u.entries > max {
		return fmt.Errorf("%w: more than %d entries (the client's artifact decompression_file_count_limit)", ErrArchiveLimit, max)
	}
	return nil
}

// limited wraps the content of an entry so that reading it past the
// archive's byte budget fails.
func (u *unpacker) limited(r io.Reader) io.Reader {
	return &budgetReader{r: r, u: u}
}

// budgetReader counts the bytes of an archive's contents as they are
// read, and fails the read that goes past the limit.
type budgetReader struct {
	r io.Reader
	u *unpacker
}

func (b *budgetReader) Read(p []byte) (int, error) {
	max := b.u.limits.DecompressionSizeLimit
	if max <= 0 {
		n, err := b.r.Read(p)
		b.u.bytes += int64(n)
		return n, err
	}
	left := max - b.u.bytes
	if left <= 0 {
		// The budget is spent: the end of the data is fine, one more
		// byte is too much.
		var one [1]byte
		if n, err := b.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("%w: it unpacks to more than %s (the client's artifact decompression_size_limit)", ErrArchiveLimit, byteCount(max))
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	b.u.bytes += int64(n)
	return n, err
}

// byteCount renders n bytes as a limit is usually written.
func byteCount(n int64) string {
	units := []struct {
		size int64
		name string
	}{{1_000_000_000_000, "TB"}, {1_000_000_000, "GB"}, {1_000_000, "MB"}, {1_000, "kB"}}
	for _, u := range units {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// undo removes what the unpacker made, newest first: files and links,
// then the directories it created, which are empty by then unless
// something else wrote there.
func (u *unpacker) undo() {
	for i := len(u.made) - 1; i >= 0; i-- {
		_ = u.root.Remove(u.made[i])
	}
}

func (u *unpacker) tarFile(f *os.File, kind archiveKind) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r, closeFn, err := kind.decompress(f)
	if err != nil {
		return err
	}
	defer closeFn()
	// The tar stream itself counts against the byte budget: headers and
	// padding of a million empty entries are bytes unpacked too.
	tr := tar.NewReader(u.limited(r))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if err := u.entry(); err != nil {
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
			err = u.mkdirAll(name, entryMode(hdr.FileInfo().Mode())|0o700)
		case tar.TypeReg:
			err = u.writeEntry(name, hdr.FileInfo().Mode(), tr)
		case tar.TypeSymlink:
			err = u.linkEntry(name, hdr.Linkname, true)
		case tar.TypeLink:
			err = u.linkEntry(name, hdr.Linkname, false)
		default:
			return fmt.Errorf("entry %q: type %q is not supported", hdr.Name, string(hdr.Typeflag))
		}
		if err != nil {
			return err
		}
	}
}

func (u *unpacker) zip(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return err
	}
	for _, zf := range zr.File {
		if err := u.entry(); err != nil {
			return err
		}
		if err := u.zipEntry(zf); err != nil {
			return err
		}
	}
	return nil
}

func (u *unpacker) zipEntry(zf *zip.File) error {
	name, err := entryName(zf.Name)
	if err != nil || name == "." {
		return err
	}
	mode := zf.Mode()
	if mode.IsDir() {
		return u.mkdirAll(name, entryMode(mode)|0o700)
	}
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("entry %q: %w", zf.Name, err)
	}
	defer rc.Close()
	if mode&fs.ModeSymlink != 0 {
		target, err := io.ReadAll(io.LimitReader(u.limited(rc), 4096))
		if err != nil {
			return fmt.Errorf("entry %q: %w", zf.Name, err)
		}
		return u.linkEntry(name, string(target), true)
	}
	if !mode.IsRegular() {
		return fmt.Errorf("entry %q: file mode %s is not supported", zf.Name, mode)
	}
	return u.writeEntry(name, mode, u.limited(rc))
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

// mkdirAll makes the directory name and its missing parents, remembering
// each one it made.
func (u *unpacker) mkdirAll(name string, mode fs.FileMode) error {
	if name == "." {
		return nil
	}
	if err := u.mkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	err := u.root.Mkdir(name, mode)
	switch {
	case err == nil:
		u.made = append(u.made, name)
		return nil
	case errors.Is(err, fs.ErrExist):
		if fi, serr := u.root.Stat(name); serr == nil && fi.IsDir() {
			return nil
		}
	}
	return fmt.Errorf("entry %q: %w", name, err)
}

func (u *unpacker) writeEntry(name string, mode fs.FileMode, r io.Reader) error {
	if err := u.mkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	// An entry replaces a file of the same name, never writes through a
	// link that an earlier entry made.
	if err := u.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	f, err := u.root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, entryMode(mode)|0o600)
	if err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	u.made = append(u.made, name)
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
func (u *unpacker) linkEntry(name, target string, symbolic bool) error {
	resolved := filepath.Join(filepath.Dir(name), filepath.FromSlash(target))
	if !symbolic {
		resolved = filepath.FromSlash(target)
	}
	if target == "" || filepath.IsAbs(target) || !filepath.IsLocal(filepath.Clean(resolved)) {
		return fmt.Errorf("entry %q: link target %q: %w", name, target, allocdir.ErrOutsideDir)
	}
	if err := u.mkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if err := u.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	var err error
	if symbolic {
		err = u.root.Symlink(target, name)
	} else {
		err = u.root.Link(filepath.Clean(resolved), name)
	}
	if err != nil {
		return fmt.Errorf("entry %q: %w", name, err)
	}
	u.made = append(u.made, name)
	return nil
}
