package snapshot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

var testState = []byte(`{"Type":"header","Value":{"Version":1}}
{"Type":"job","Value":{"ID":"example"}}
`)

func testMeta() Meta {
	return Meta{
		ID:            "2-17-1700000000000",
		Index:         17,
		Term:          2,
		Version:       1,
		Size:          int64(len(testState)),
		DroverVersion: "0.1.0",
		CreateTime:    time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
	}
}

func writeTestArchive(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	must.NoError(t, Write(&buf, testMeta(), bytes.NewReader(testState)))
	return buf.Bytes()
}

func TestArchive_RoundTrip(t *testing.T) {
	archive := writeTestArchive(t)

	var state bytes.Buffer
	meta, err := Read(bytes.NewReader(archive), &state)
	must.NoError(t, err)
	want := testMeta()
	want.Format = FormatVersion
	must.Eq(t, want.CreateTime, meta.CreateTime.UTC())
	meta.CreateTime = want.CreateTime
	must.Eq(t, want, *meta)
	must.Eq(t, string(testState), state.String())

	verified, err := Verify(bytes.NewReader(archive))
	must.NoError(t, err)
	must.Eq(t, meta.ID, verified.ID)
}

// TestArchive_Layout holds the layout the docs describe: three files in
// order, and SHA256SUMS in sha256sum's format.
func TestArchive_Layout(t *testing.T) {
	files := untar(t, writeTestArchive(t))
	must.Eq(t, []string{MetaFile, StateFile, SumsFile}, names(files))
	must.Eq(t, string(testState), string(files[1].data))
	want := fmt.Sprintf("%x  %s\n%x  %s\n",
		sha256.Sum256(files[0].data), MetaFile, sha256.Sum256(files[1].data), StateFile)
	must.Eq(t, want, string(files[2].data))
	must.StrContains(t, string(files[0].data), `"Index": 17`)
}

func TestArchive_Empty(t *testing.T) {
	var buf bytes.Buffer
	meta := testMeta()
	meta.Size = 0
	must.NoError(t, Write(&buf, meta, strings.NewReader("")))
	got, err := Verify(&buf)
	must.NoError(t, err)
	must.Eq(t, 0, got.Size)
}

func TestWrite_StateSizeMismatch(t *testing.T) {
	meta := testMeta()
	meta.Size++
	err := Write(io.Discard, meta, bytes.NewReader(testState))
	must.ErrorContains(t, err, "the state ended after")

	meta.Size -= 2
	err = Write(io.Discard, meta, bytes.NewReader(testState))
	must.ErrorContains(t, err, "the state is longer than its metadata says")
}

// TestRead_Truncated cuts the archive at every length: each is refused.
func TestRead_Truncated(t *testing.T) {
	archive := writeTestArchive(t)
	for n := range len(archive) {
		_, err := Verify(bytes.NewReader(archive[:n]))
		must.Error(t, err, must.Sprintf("archive cut to %d of %d bytes was accepted", n, len(archive)))
		must.StrContains(t, err.Error(), "read snapshot archive: ")
	}
	_, err := Verify(bytes.NewReader(archive[:len(archive)/2]))
	must.ErrorContains(t, err, "truncated")
	_, err = Verify(bytes.NewReader(nil))
	must.ErrorContains(t, err, "the archive is empty")
}

// TestRead_Corrupted flips every byte in turn. Only the gzip header's
// timestamp, extra flags and OS bytes (4 to 9) carry nothing the reader
// can check; any other change is refused.
func TestRead_Corrupted(t *testing.T) {
	archive := writeTestArchive(t)
	for i := range archive {
		if i >= 4 && i <= 9 {
			continue
		}
		bad := bytes.Clone(archive)
		bad[i] ^= 0xff
		_, err := Verify(bytes.NewReader(bad))
		must.Error(t, err, must.Sprintf("archive with byte %d flipped was accepted", i))
	}
}

func TestRead_TrailingData(t *testing.T) {
	archive := append(writeTestArchive(t), "junk"...)
	_, err := Verify(bytes.NewReader(archive))
	must.ErrorContains(t, err, "trailing data")
}

func TestRead_NotAnArchive(t *testing.T) {
	_, err := Verify(strings.NewReader(`{"Job": {}}`))
	must.ErrorContains(t, err, "not a gzip'd snapshot archive")
}

// TestRead_BadContents builds archives that are well-formed gzip'd tars
// but not good snapshots: each is refused with a reason.
func TestRead_BadContents(t *testing.T) {
	goodMeta := func() []byte {
		return untar(t, writeTestArchive(t))[0].data
	}
	sums := func(meta, state []byte) []byte {
		return fmt.Appendf(nil, "%x  %s\n%x  %s\n", sha256.Sum256(meta), MetaFile, sha256.Sum256(state), StateFile)
	}
	tests := []struct {
		name  string
		files []file
		want  string
	}{
		{
			name:  "state altered",
			files: []file{{MetaFile, goodMeta()}, {StateFile, bytes.ToUpper(testState)}, {SumsFile, sums(goodMeta(), testState)}},
			want:  "state.bin is corrupt: its SHA-256 is",
		},
		{
			name:  "meta altered",
			files: []file{{MetaFile, bytes.Replace(goodMeta(), []byte(`"Index": 17`), []byte(`"Index": 18`), 1)}, {StateFile, testState}, {SumsFile, sums(goodMeta(), testState)}},
			want:  "meta.json is corrupt",
		},
		{
			name:  "files out of order",
			files: []file{{StateFile, testState}, {MetaFile, goodMeta()}},
			want:  `expected meta.json, found "state.bin"`,
		},
		{
			name:  "no sums",
			files: []file{{MetaFile, goodMeta()}, {StateFile, testState}},
			want:  "the archive ends before SHA256SUMS",
		},
		{
			name:  "sums miss a file",
			files: []file{{MetaFile, goodMeta()}, {StateFile, testState}, {SumsFile, sums(goodMeta(), testState)[:65+len(MetaFile)+1]}},
			want:  "SHA256SUMS does not list state.bin",
		},
		{
			name:  "sums malformed",
			files: []file{{MetaFile, goodMeta()}, {StateFile, testState}, {SumsFile, []byte("xyz\n")}},
			want:  `SHA256SUMS line 1 is not`,
		},
		{
			name:  "extra file",
			files: []file{{MetaFile, goodMeta()}, {StateFile, testState}, {SumsFile, sums(goodMeta(), testState)}, {"evil", nil}},
			want:  `unexpected file "evil"`,
		},
		{
			name:  "state size differs from meta",
			files: []file{{MetaFile, goodMeta()}, {StateFile, testState[:5]}},
			want:  "state.bin holds 5 bytes but meta.json says",
		},
		{
			name:  "meta not JSON",
			files: []file{{MetaFile, []byte("nope")}},
			want:  "decode meta.json",
		},
		{
			name:  "meta from a future format",
			files: []file{{MetaFile, bytes.Replace(goodMeta(), []byte(`"Format": 1`), []byte(`"Format": 2`), 1)}},
			want:  "archive format 2 is not the one this version reads (1)",
		},
		{
			name:  "meta with unknown field",
			files: []file{{MetaFile, []byte(`{"Format":1,"ID":"x","Bogus":true}`)}},
			want:  `unknown field "Bogus"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Verify(bytes.NewReader(buildArchive(t, tc.files)))
			must.ErrorContains(t, err, tc.want)
		})
	}
}

type file struct {
	name string
	data []byte
}

func names(files []file) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.name
	}
	return out
}

func untar(t *testing.T, archive []byte) []file {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	must.NoError(t, err)
	tr := tar.NewReader(gz)
	var files []file
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		}
		must.NoError(t, err)
		data, err := io.ReadAll(tr)
		must.NoError(t, err)
		files = append(files, file{hdr.Name, data})
	}
}

func buildArchive(t *testing.T, files []file) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		must.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: 0o600, Size: int64(len(f.data))}))
		_, err := tw.Write(f.data)
		must.NoError(t, err)
	}
	must.NoError(t, tw.Close())
	must.NoError(t, gz.Close())
	return buf.Bytes()
}
