package logrotate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/beneath"
)

// openDir opens dir for a rotator, closing it when the test ends.
func openDir(t *testing.T, dir string) *beneath.Dir {
	t.Helper()
	d, err := beneath.Open(dir)
	must.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

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
	base := "web.stdout"
	r, err := New(openDir(t, dir), base, 3, 10)
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
	r, err := New(openDir(t, dir), "web.stderr", 10, 4)
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
	base := "web.stdout"
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

	r, err := New(openDir(t, dir), base, 2, 8)
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
	must.NoError(t, os.WriteFile(filepath.Join(dir, "web.stdout.0"), []byte("full"), 0o644))
	r, err := New(openDir(t, dir), "web.stdout", 5, 4)
	must.NoError(t, err)
	_, err = r.Write([]byte("next"))
	must.NoError(t, err)
	must.NoError(t, r.Close())
	must.Eq(t, map[string]string{"web.stdout.0": "full", "web.stdout.1": "next"}, logFiles(t, dir))
}

func TestRotator_InvalidLimits(t *testing.T) {
	dir := openDir(t, t.TempDir())
	_, err := New(dir, "web.stdout", 0, 10)
	must.ErrorContains(t, err, "max files must be at least 1")
	_, err = New(dir, "web.stdout", 1, 0)
	must.ErrorContains(t, err, "max file size must be at least 1 byte")
	_, err = New(dir, "../web.stdout", 1, 1)
	must.ErrorContains(t, err, "the base is a name in the log directory")
}

// TestRotator_ReplacesWhatATaskLeft: alloc/logs is the tasks' to write. A
// link to a file of the machine, a named pipe, a device or a hard link
// left under a log file's name must not take the task's output: it is
// replaced by a new log file, and what it named is left as it was.
func TestRotator_ReplacesWhatATaskLeft(t *testing.T) {
	plantings := map[string]func(t *testing.T, path, host string){
		"link to a host file": func(t *testing.T, path, host string) {
			must.NoError(t, os.Symlink(host, path))
		},
		"hard link to a host file": func(t *testing.T, path, host string) {
			must.NoError(t, os.Link(host, path))
		},
		"named pipe": func(t *testing.T, path, _ string) {
			must.NoError(t, syscall.Mkfifo(path, 0o644))
		},
		"device": func(t *testing.T, path, _ string) {
			if os.Geteuid() != 0 {
				t.Skip("making a device node needs root; CI runs as root")
			}
			must.NoError(t, syscall.Mknod(path, syscall.S_IFCHR|0o644, 1<<8|3))
		},
	}
	for name, plant := range plantings {
		t.Run(name, func(t *testing.T) {
			host := filepath.Join(t.TempDir(), "sentinel")
			must.NoError(t, os.WriteFile(host, []byte("host"), 0o640))
			dir := t.TempDir()
			// The current file, then the one a rotation opens.
			plant(t, filepath.Join(dir, "web.stdout.0"), host)
			r := newWithin(t, openDir(t, dir), "web.stdout", 3, 4)
			must.NoError(t, os.Symlink(host, filepath.Join(dir, "web.stdout.1")))
			_, err := r.Write([]byte("abcdefgh"))
			must.NoError(t, err)
			must.NoError(t, r.Close())

			must.Eq(t, map[string]string{"web.stdout.0": "abcd", "web.stdout.1": "efgh"}, logFiles(t, dir))
			b, err := os.ReadFile(host)
			must.NoError(t, err)
			must.Eq(t, "host", string(b))
		})
	}
}

// newWithin is New, failing t if it blocks (as an open of a named pipe
// does) beyond a bound generous for a loaded machine.
func newWithin(t *testing.T, dir *beneath.Dir, base string, maxFiles int, maxBytes int64) *Rotator {
	t.Helper()
	type result struct {
		r   *Rotator
		err error
	}
	ch := make(chan result, 1)
	go func() {
		r, err := New(dir, base, maxFiles, maxBytes)
		ch <- result{r, err}
	}()
	select {
	case res := <-ch:
		must.NoError(t, res.err)
		return res.r
	case <-time.After(30 * time.Second):
		t.Fatal("opening the log file blocked")
		return nil
	}
}

func TestRotator_LogDirLinkedOut(t *testing.T) {
	host := t.TempDir()
	alloc := t.TempDir()
	must.NoError(t, os.Mkdir(filepath.Join(alloc, "alloc"), 0o755))
	must.NoError(t, os.Symlink(host, filepath.Join(alloc, "alloc", "logs")))
	root := openDir(t, alloc)
	_, err := root.OpenDir("alloc/logs")
	must.ErrorIs(t, err, beneath.ErrSymlink, must.Sprint("a rotator never gets a log directory that is a link"))
}
