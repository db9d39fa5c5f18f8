package beneathtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

const (
	sentinel     = "sentinel"
	sentinelText = "host"
	sentinelMode = os.FileMode(0o640)
)

// HostDir is a directory standing for one of the machine's (/ or /etc),
// holding one file.
func HostDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must.NoError(t, os.WriteFile(filepath.Join(dir, sentinel), []byte(sentinelText), sentinelMode))
	return dir
}

// Unchanged fails t unless dir, made by HostDir, holds its file alone,
// with the content and mode it was made with.
func Unchanged(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must.NoError(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	must.Eq(t, []string{sentinel}, names, must.Sprintf("nothing may be made in %s", dir))
	path := filepath.Join(dir, sentinel)
	b, err := os.ReadFile(path)
	must.NoError(t, err)
	must.Eq(t, sentinelText, string(b))
	fi, err := os.Stat(path)
	must.NoError(t, err)
	must.Eq(t, sentinelMode, fi.Mode())
}
