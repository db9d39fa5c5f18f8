package logrotate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// logFiles returns the rotator's files in dir and their contents.
func logFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must.NoError(t, err)
	out := make(map[string]string)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		must.NoError(t, err)
		out[e.Name()] = string(b)
	}
	return out
}

func TestRotator_RotatesBySizeAndKeepsMaxFiles(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "web.stdout")
	r, err := New(base, 3, 10)
	must.NoError(t, err)

	// 45 bytes over 10-byte files: indexes 0..4, of which the newest 3
	// are kept.
	n, err := r.Write([]byte(strings.Repeat("abcdefghi\n", 4) + "tail\n"))
	must.NoError(t, err)
	must.Eq(t, 45, n)
	must.Eq(t, base+".4", r.path(r.index))
	must.NoError(t, r.Close())

	must.Eq(t, map[string]string{
		"web.stdout.2": "abcdefghi\n",
		"web.stdout.3": "abcdefghi\n",
		"web.stdout.4": "tail\n",
	}, logFiles(t, dir))
}

func TestRotator_SmallWritesFillFiles(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "web.stderr")
	r, err := New(base, 10, 4)
	must.NoError(t, err)
	for _, s := range []string{"ab", "cd", "ef", "ghij", "k"} {
		_, err := r.Write([]byte(s))
		must.NoError(t, err)
	}
	must.NoError(t, r.Close())
	must.Eq(t, map[string]string{
		"web.stderr.0": "abcd",
		"web.stderr.1": "efgh",
		"web.stderr.2": "ij" + "k",
	}, logFiles(t, dir))
}

func TestRotator_ResumesHighestFile(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "web.stdout")
	// Earlier runs left files 0, 9 and 10; "10" must sort after "9".
	for name, content := range map[string]string{
		"web.stdout.0":  "old",
		"web.stdout.9":  "ninth",
		"web.stdout.10": "12345",
		"web.stdout.x":  "not a log file",
		"web.stderr.11": "other stream",
	} {
		must.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}

	r, err := New(base, 2, 8)
	must.NoError(t, err)
	must.Eq(t, base+".10", r.path(r.index))
	_, err = r.Write([]byte("678abc"))
	must.NoError(t, err)
	must.NoError(t, r.Close())

	must.Eq(t, map[string]string{
		"web.stdout.10": "12345678",
		"web.stdout.11": "abc",
		"web.stdout.x":  "not a log file",
		"web.stderr.11": "other stream",
	}, logFiles(t, dir))
}

func TestRotator_ResumeFullFileRotatesOnWrite(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "web.stdout")
	must.NoError(t, os.WriteFile(base+".0", []byte("full"), 0o644))
	r, err := New(base, 5, 4)
	must.NoError(t, err)
	_, err = r.Write([]byte("next"))
	must.NoError(t, err)
	must.NoError(t, r.Close())
	must.Eq(t, map[string]string{"web.stdout.0": "full", "web.stdout.1": "next"}, logFiles(t, dir))
}

func TestRotator_InvalidLimits(t *testing.T) {
	base := filepath.Join(t.TempDir(), "web.stdout")
	_, err := New(base, 0, 10)
	must.ErrorContains(t, err, "max files must be at least 1")
	_, err = New(base, 1, 0)
	must.ErrorContains(t, err, "max file size must be at least 1 byte")
	_, err = New(filepath.Join(t.TempDir(), "missing", "web.stdout"), 1, 1)
	must.ErrorContains(t, err, "list log files")
}
