package taskrunner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

func TestParseChecksum(t *testing.T) {
	// Digests of "abc".
	cases := []struct {
		opt     string
		wantErr string
	}{
		{opt: ""},
		{opt: "md5:900150983cd24fb0d6963f7d28e17f72"},
		{opt: "sha1:a9993e364706816aba3e25717850c26c9cd0d89d"},
		{opt: "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{opt: "sha512:ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
		{opt: "sha256", wantErr: "want <type>:<hex digest>"},
		{opt: "crc:00", wantErr: `checksum type "crc" is not supported`},
		{opt: "md5:zz", wantErr: "not hex"},
		{opt: "md5:00", wantErr: "32 hex digits"},
	}
	path := filepath.Join(t.TempDir(), "f")
	must.NoError(t, os.WriteFile(path, []byte("abc"), 0o644))
	f, err := os.Open(path)
	must.NoError(t, err)
	defer f.Close()
	for _, c := range cases {
		sum, err := parseChecksum(c.opt)
		if c.wantErr != "" {
			must.ErrorContains(t, err, c.wantErr, must.Sprint(c.opt))
			continue
		}
		must.NoError(t, err, must.Sprint(c.opt))
		if c.opt == "" {
			must.Nil(t, sum)
			continue
		}
		must.NoError(t, sum.verify(f), must.Sprint(c.opt))
	}
}

func TestArchiveKindOf(t *testing.T) {
	cases := []struct {
		path, opt string
		want      archiveKind
		wantErr   bool
	}{
		{path: "/a/b.tar.gz", want: archiveTarGz},
		{path: "/a/b.TGZ", want: archiveTarGz},
		{path: "/a/b.tar", want: archiveTar},
		{path: "/a/b.zip", want: archiveZip},
		{path: "/a/b.bin", want: archiveNone},
		{path: "/a/b.zip", opt: "false", want: archiveNone},
		{path: "/a/b", opt: "zip", want: archiveZip},
		{path: "/a/b", opt: "tgz", want: archiveTarGz},
		{path: "/a/b", opt: "7z", wantErr: true},
	}
	for _, c := range cases {
		got, err := archiveKindOf(c.path, c.opt)
		if c.wantErr {
			must.Error(t, err)
			continue
		}
		must.NoError(t, err)
		must.Eq(t, c.want, got, must.Sprintf("%s with %q", c.path, c.opt))
	}
}
