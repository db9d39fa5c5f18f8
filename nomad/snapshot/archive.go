// Package snapshot is the archive format of a saved server state, as
// "drover operator snapshot save" writes it and "restore" and "inspect"
// read it.
//
// An archive is a gzip'd tar holding, in this order:
//
//	meta.json   the raft snapshot's metadata (Meta)
//	state.bin   the state store, as the FSM persists it
//	SHA256SUMS  the SHA-256 of the two files, in sha256sum's format
//
// so that, unpacked, "sha256sum -c SHA256SUMS" checks it too. Reading an
// archive checks every layer: the gzip CRC, the tar headers, the sizes and
// the sums. A truncated or altered archive is refused.
package snapshot

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Names of the files in an archive.
const (
	MetaFile  = "meta.json"
	StateFile = "state.bin"
	SumsFile  = "SHA256SUMS"
)

// FormatVersion is the version of the archive layout this package writes
// and the only one it reads.
const FormatVersion = 1

// Limits on what Read accepts, so that a hostile or broken archive cannot
// make the reader buffer or write without bound.
const (
	maxMetaSize = 64 << 10
	maxSumsSize = 4 << 10

	// MaxStateSize bounds state.bin: a state far above any real
	// cluster's, and a cap on what a small compressed archive may
	// expand to.
	MaxStateSize = 8 << 30
)

// Meta is what meta.json holds: the raft snapshot's metadata and where the
// archive came from.
type Meta struct {
	// Format is the archive layout version, FormatVersion.
	Format int

	// ID, Index, Term and Version are those of the raft snapshot the
	// state was taken from: the last log entry the state includes, and
	// raft's snapshot metadata version.
	ID      string
	Index   uint64
	Term    uint64
	Version int

	// Size is the length of state.bin in bytes.
	Size int64

	// DroverVersion is the version of the server that took the snapshot.
	DroverVersion string `json:",omitempty"`

	// CreateTime is when the archive was written.
	CreateTime time.Time
}

// Write writes an archive of meta and the state read from state to w.
// state must yield exactly meta.Size bytes. meta.Format is set to
// FormatVersion. The caller closes w.
func Write(w io.Writer, meta Meta, state io.Reader) error {
	meta.Format = FormatVersion
	if meta.Size < 0 {
		return fmt.Errorf("write snapshot archive: negative state size %d", meta.Size)
	}
	metaJSON, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("write snapshot archive: encode %s: %w", MetaFile, err)
	}
	metaJSON = append(metaJSON, '\n')

	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	modTime := meta.CreateTime
	if modTime.IsZero() {
		modTime = time.Now()
	}
	sums := map[string][]byte{}

	sum := sha256.Sum256(metaJSON)
	sums[MetaFile] = sum[:]
	if err := writeFile(tw, MetaFile, modTime, int64(len(metaJSON)), bytes.NewReader(metaJSON)); err != nil {
		return err
	}

	h := sha256.New()
	if err := writeFile(tw, StateFile, modTime, meta.Size, io.TeeReader(state, h)); err != nil {
		return err
	}
	if err := expectEnd(state); err != nil {
		return fmt.Errorf("write snapshot archive: %s: %w", StateFile, err)
	}
	sums[StateFile] = h.Sum(nil)

	sumsText := formatSums(sums)
	if err := writeFile(tw, SumsFile, modTime, int64(len(sumsText)), strings.NewReader(sumsText)); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("write snapshot archive: close tar: %w", err)
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("write snapshot archive: close gzip: %w", err)
	}
	return nil
}

func writeFile(tw *tar.Writer, name string, modTime time.Time, size int64, r io.Reader) error {
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Mode:     0o600,
		Size:     size,
		ModTime:  modTime,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("write snapshot archive: %s header: %w", name, err)
	}
	n, err := io.CopyN(tw, r, size)
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("write snapshot archive: %s: the state ended after %d of %d bytes", name, n, size)
	}
	if err != nil {
		return fmt.Errorf("write snapshot archive: %s: %w", name, err)
	}
	return nil
}

// expectEnd checks that r has nothing left: a state longer than its
// metadata says would otherwise be cut short without a word.
func expectEnd(r io.Reader) error {
	var probe [1]byte
	n, err := io.ReadFull(r, probe[:])
	if n > 0 {
		return errors.New("the state is longer than its metadata says")
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// formatSums renders sums as sha256sum does, sorted by file name.
func formatSums(sums map[string][]byte) string {
	var b strings.Builder
	for _, name := range []string{MetaFile, StateFile} {
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sums[name]), name)
	}
	return b.String()
}

// Read reads and checks an archive from r, copying its state to state,
// and returns its metadata. What was copied to state is to be trusted only
// if Read returns no error: the sums come last, so a corrupt state is
// found only once it has been copied.
func Read(r io.Reader, state io.Writer) (*Meta, error) {
	meta, err := read(r, state)
	if err != nil {
		return nil, fmt.Errorf("read snapshot archive: %w", err)
	}
	return meta, nil
}

// Verify reads and checks an archive from r without keeping its state,
// and returns its metadata.
func Verify(r io.Reader) (*Meta, error) {
	return Read(r, io.Discard)
}

func read(r io.Reader, state io.Writer) (*Meta, error) {
	// gzip reads a ByteReader without reading ahead, so br is left just
	// after the gzip stream, where the archive must end.
	br := bufio.NewReader(r)
	gz, err := gzip.NewReader(br)
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the archive is empty")
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, readError(err)
	}
	if err != nil {
		return nil, fmt.Errorf("not a gzip'd snapshot archive: %w", err)
	}
	defer gz.Close()
	gz.Multistream(false)
	tr := tar.NewReader(gz)
	got := map[string][]byte{}

	metaJSON, err := readSmallFile(tr, MetaFile, maxMetaSize, got)
	if err != nil {
		return nil, err
	}
	meta, err := decodeMeta(metaJSON)
	if err != nil {
		return nil, err
	}

	hdr, err := nextFile(tr, StateFile)
	if err != nil {
		return nil, err
	}
	if hdr.Size != meta.Size {
		return nil, fmt.Errorf("%s holds %d bytes but %s says %d", StateFile, hdr.Size, MetaFile, meta.Size)
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(state, h), tr); err != nil {
		return nil, fmt.Errorf("read %s: %w", StateFile, readError(err))
	}
	got[StateFile] = h.Sum(nil)

	sumsText, err := readSmallFile(tr, SumsFile, maxSumsSize, nil)
	if err != nil {
		return nil, err
	}
	if err := checkSums(string(sumsText), got); err != nil {
		return nil, err
	}

	if hdr, err := tr.Next(); err == nil {
		return nil, fmt.Errorf("unexpected file %q after %s", hdr.Name, SumsFile)
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read the end of the archive: %w", readError(err))
	}
	// The tar reader stops at its end marker; reading the gzip stream to
	// its end checks its CRC and length.
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return nil, fmt.Errorf("read the end of the archive: %w", readError(err))
	}
	if _, err := br.ReadByte(); err == nil {
		return nil, errors.New("the archive has trailing data after its gzip stream")
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read the end of the archive: %w", err)
	}
	return meta, nil
}

// nextFile reads the next tar header, which must be the regular file name.
func nextFile(tr *tar.Reader, name string) (*tar.Header, error) {
	hdr, err := tr.Next()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("the archive ends before %s: it is truncated or not a snapshot", name)
	}
	if err != nil {
		return nil, fmt.Errorf("read the header of %s: %w", name, readError(err))
	}
	if hdr.Name != name {
		return nil, fmt.Errorf("expected %s, found %q: not a Drover snapshot archive", name, hdr.Name)
	}
	if hdr.Typeflag != tar.TypeReg {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if hdr.Size < 0 || hdr.Size > MaxStateSize {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d a snapshot may hold", name, hdr.Size, int64(MaxStateSize))
	}
	return hdr, nil
}

// readSmallFile reads the next file, which must be name and at most limit
// bytes, and records its sum in sums when sums is not nil.
func readSmallFile(tr *tar.Reader, name string, limit int64, sums map[string][]byte) ([]byte, error) {
	hdr, err := nextFile(tr, name)
	if err != nil {
		return nil, err
	}
	if hdr.Size > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d it may hold", name, hdr.Size, limit)
	}
	data, err := io.ReadAll(tr)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, readError(err))
	}
	if sums != nil {
		sum := sha256.Sum256(data)
		sums[name] = sum[:]
	}
	return data, nil
}

func decodeMeta(data []byte) (*Meta, error) {
	var meta Meta
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&meta); err != nil {
		return nil, fmt.Errorf("decode %s: %w", MetaFile, err)
	}
	if meta.Format != FormatVersion {
		return nil, fmt.Errorf("%s: archive format %d is not the one this version reads (%d)", MetaFile, meta.Format, FormatVersion)
	}
	if meta.Size < 0 || meta.Size > MaxStateSize {
		return nil, fmt.Errorf("%s: state size %d is out of range", MetaFile, meta.Size)
	}
	if meta.ID == "" {
		return nil, fmt.Errorf("%s: no snapshot ID", MetaFile)
	}
	return &meta, nil
}

// checkSums compares the sums file with the sums of what was read: it
// must list exactly meta.json and state.bin, with their sums.
func checkSums(text string, got map[string][]byte) error {
	listed := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		sumHex, name, ok := strings.Cut(line, "  ")
		if !ok {
			return fmt.Errorf("%s line %d is not \"<sha256>  <file>\"", SumsFile, i+1)
		}
		want, err := hex.DecodeString(sumHex)
		if err != nil || len(want) != sha256.Size {
			return fmt.Errorf("%s line %d: %q is not a SHA-256", SumsFile, i+1, sumHex)
		}
		have, known := got[name]
		if !known {
			return fmt.Errorf("%s lists %q, which is not in the archive", SumsFile, name)
		}
		if listed[name] {
			return fmt.Errorf("%s lists %s twice", SumsFile, name)
		}
		listed[name] = true
		if !bytes.Equal(want, have) {
			return fmt.Errorf("%s is corrupt: its SHA-256 is %x, %s says %x", name, have, SumsFile, want)
		}
	}
	for _, name := range []string{MetaFile, StateFile} {
		if !listed[name] {
			return fmt.Errorf("%s does not list %s", SumsFile, name)
		}
	}
	return nil
}

// readError words a failure to read the compressed stream: a truncated
// archive is the usual cause.
func readError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("the archive is truncated (unexpected end of data)")
	}
	if errors.Is(err, gzip.ErrChecksum) {
		return errors.New("the archive is corrupt (gzip checksum mismatch)")
	}
	var corrupt flate.CorruptInputError
	if errors.As(err, &corrupt) {
		return fmt.Errorf("the archive is corrupt (bad compressed data at byte %d)", int64(corrupt))
	}
	return err
}
