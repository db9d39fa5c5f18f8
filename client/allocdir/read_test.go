package allocdir

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// testReader builds an allocation directory and opens a Reader on it.
func testReader(t *testing.T) (string, *Reader) {
	t.Helper()
	dir := t.TempDir()
	r, err := OpenReader(dir)
	must.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return dir, r
}

// openWithin opens rel through r, failing the test if Open does not
// return within a bound generous for a loaded machine: what a FIFO would
// do to a blocking open.
func openWithin(t *testing.T, r *Reader, rel string) (*os.File, fs.FileInfo, error) {
	t.Helper()
	type result struct {
		f   *os.File
		fi  fs.FileInfo
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, fi, err := r.Open(rel)
		ch <- result{f, fi, err}
	}()
	select {
	case res := <-ch:
		if res.f != nil {
			t.Cleanup(func() { res.f.Close() })
		}
		return res.f, res.fi, res.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Open(%q) blocked", rel)
		return nil, nil, nil
	}
}

func unreadable(t *testing.T, err error) *UnreadableError {
	t.Helper()
	var ue *UnreadableError
	must.True(t, errors.As(err, &ue), must.Sprintf("want an *UnreadableError, got %v", err))
	return ue
}

func TestReader_RegularFilesAndDirectories(t *testing.T) {
	dir, r := testReader(t)
	must.NoError(t, os.MkdirAll(filepath.Join(dir, "alloc", "logs"), 0o755))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "alloc", "logs", "t.stdout.0"), []byte("hello\n"), 0o644))
	must.NoError(t, os.Symlink("logs/t.stdout.0", filepath.Join(dir, "alloc", "inside-link")))

	f, fi, err := openWithin(t, r, "alloc/logs/t.stdout.0")
	must.NoError(t, err)
	must.True(t, fi.Mode().IsRegular())
	data, err := io.ReadAll(f)
	must.NoError(t, err)
	must.Eq(t, "hello\n", string(data))

	_, fi, err = openWithin(t, r, "alloc/inside-link")
	must.NoError(t, err, must.Sprint("a symbolic link that stays inside is followed"))
	must.True(t, fi.Mode().IsRegular())

	_, fi, err = openWithin(t, r, "alloc")
	must.NoError(t, err)
	must.True(t, fi.IsDir())
}

func TestReader_RefusesSpecialFiles(t *testing.T) {
	dir, r := testReader(t)
	must.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	ln, err := net.Listen("unix", filepath.Join(dir, "sock"))
	must.NoError(t, err)
	defer ln.Close()

	cases := map[string]string{
		"fifo": `path "fifo" is a named pipe (FIFO): only regular files and directories can be read`,
		"sock": `path "sock" is a socket: only regular files and directories can be read`,
	}
	for rel, want := range cases {
		_, _, err := openWithin(t, r, rel)
		must.EqError(t, unreadable(t, err), want)

		// Stat reads nothing, and describes any kind of file.
		_, err = r.Stat(rel)
		must.NoError(t, err)
	}
}

func TestReader_KindNames(t *testing.T) {
	cases := map[fs.FileMode]string{
		fs.ModeNamedPipe:                      "a named pipe (FIFO)",
		fs.ModeSocket:                         "a socket",
		fs.ModeDevice | fs.ModeCharDevice:     "a character device",
		fs.ModeDevice:                         "a block device",
		fs.ModeSymlink:                        "a symbolic link",
		fs.ModeIrregular | fs.FileMode(0o644): "not a regular file (mode ?rw-r--r--)",
	}
	for mode, want := range cases {
		must.Eq(t, want, kindOf(mode))
	}
}

func TestReader_HardLinks(t *testing.T) {
	dir, r := testReader(t)
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("not the allocation's"), 0o600); err != nil {
		t.Fatal(err)
	}
	// t.TempDir()s share a file system, so the link can be made.
	must.NoError(t, os.Link(outside, filepath.Join(dir, "stolen")))

	must.NoError(t, os.MkdirAll(filepath.Join(dir, "task", "local"), 0o755))
	own := filepath.Join(dir, "task", "local", "own")
	must.NoError(t, os.WriteFile(own, []byte("mine"), 0o644))
	must.NoError(t, os.Link(own, filepath.Join(dir, "own-again")))

	_, _, err := openWithin(t, r, "stolen")
	must.EqError(t, unreadable(t, err),
		`path "stolen" is a hard link to a file outside the allocation directory (2 links, 1 of them inside it)`)

	f, _, err := openWithin(t, r, "own-again")
	must.NoError(t, err, must.Sprint("every link to the file is inside the allocation directory"))
	data, err := io.ReadAll(f)
	must.NoError(t, err)
	must.Eq(t, "mine", string(data))

	// A third link, outside, makes both inside ones unreadable.
	must.NoError(t, os.Link(own, filepath.Join(t.TempDir(), "third")))
	_, _, err = openWithin(t, r, "task/local/own")
	must.EqError(t, unreadable(t, err),
		`path "task/local/own" is a hard link to a file outside the allocation directory (3 links, 2 of them inside it)`)
}

func TestReader_LeavingTheDirectory(t *testing.T) {
	dir, r := testReader(t)
	outside := filepath.Join(t.TempDir(), "file")
	must.NoError(t, os.WriteFile(outside, []byte("x"), 0o644))
	must.NoError(t, os.Symlink(outside, filepath.Join(dir, "abs-link")))
	must.NoError(t, os.Symlink("../../../../../../../../etc", filepath.Join(dir, "rel-link")))

	for _, rel := range []string{"abs-link", "rel-link/passwd", "../x"} {
		_, _, err := openWithin(t, r, rel)
		must.Error(t, err, must.Sprintf("open %s", rel))
		var ue *UnreadableError
		must.False(t, errors.As(err, &ue), must.Sprint("refused by the root, before any look at the file"))
	}
}

func TestReader_HardLinkSearchIsBounded(t *testing.T) {
	dir, r := testReader(t)
	r.searchLimit = 5
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		must.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
	}
	must.NoError(t, os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "a2")))

	_, _, err := openWithin(t, r, "a2")
	must.EqError(t, unreadable(t, err),
		`path "a2" is a hard link (2 links) in an allocation directory of more than 5 entries, too many to check that every link is inside it`)

	// A file linked once needs no search, however big the directory.
	_, _, err = openWithin(t, r, "b")
	must.NoError(t, err)
}
