package beneath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// layout is a directory to work beneath and, beside it, a sentinel
// directory that stands for the rest of the machine: nothing a test does
// beneath the first may change the second.
type layout struct {
	dir      string
	outside  string
	sentinel string // a file in outside
	d        *Dir
}

func newLayout(t *testing.T) *layout {
	t.Helper()
	l := &layout{dir: t.TempDir(), outside: t.TempDir()}
	l.sentinel = filepath.Join(l.outside, "sentinel")
	must.NoError(t, os.WriteFile(l.sentinel, []byte("host"), 0o640))
	d, err := Open(l.dir)
	must.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	l.d = d
	return l
}

// untouched fails t unless the outside directory holds just the
// sentinel, as it was.
func (l *layout) untouched(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(l.outside)
	must.NoError(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	must.Eq(t, []string{"sentinel"}, names, must.Sprint("nothing outside may be made or removed"))
	fi, err := os.Stat(l.sentinel)
	must.NoError(t, err)
	must.Eq(t, fs.FileMode(0o640), fi.Mode())
	b, err := os.ReadFile(l.sentinel)
	must.NoError(t, err)
	must.Eq(t, "host", string(b))
	st := fi.Sys().(*syscall.Stat_t)
	must.Eq(t, uint32(os.Getuid()), st.Uid)
}

func (l *layout) symlink(t *testing.T, target, rel string) {
	t.Helper()
	must.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(l.dir, rel)), 0o755))
	must.NoError(t, os.Symlink(target, filepath.Join(l.dir, rel)))
}

func TestDir_WalksNoSymbolicLink(t *testing.T) {
	l := newLayout(t)
	must.NoError(t, os.MkdirAll(filepath.Join(l.dir, "alloc", "logs"), 0o755))
	l.symlink(t, l.outside, "alloc/out")      // absolute, outside
	l.symlink(t, "logs", "alloc/in")          // relative, inside
	l.symlink(t, "../../..", "alloc/up")      // relative, climbs out
	l.symlink(t, l.outside, "alloc/logs/out") // deeper

	for _, rel := range []string{"alloc/out", "alloc/in", "alloc/up", "alloc/logs/out", "alloc/out/x"} {
		_, err := l.d.OpenDir(rel)
		must.ErrorIs(t, err, ErrSymlink, must.Sprintf("open dir %s", rel))
		_, err = l.d.MkdirAll(rel+"/made", 0o755)
		must.ErrorIs(t, err, ErrSymlink, must.Sprintf("mkdir under %s", rel))
		_, err = l.d.OpenFile(rel+"/f", os.O_CREATE|os.O_WRONLY, 0o644)
		must.ErrorIs(t, err, ErrSymlink, must.Sprintf("create under %s", rel))
	}
	for _, rel := range []string{"../x", "/etc", "alloc/../../x"} {
		_, err := l.d.OpenDir(rel)
		must.ErrorIs(t, err, ErrEscapes, must.Sprintf("open dir %s", rel))
	}
	l.untouched(t)

	logs, err := l.d.OpenDir("alloc/logs")
	must.NoError(t, err)
	defer logs.Close()
	must.Eq(t, filepath.Join(l.dir, "alloc/logs"), logs.Name())
}

func TestDir_MkdirAll(t *testing.T) {
	l := newLayout(t)
	sub, err := l.d.MkdirAll("a/b/c", 0o750)
	must.NoError(t, err)
	defer sub.Close()
	fi, err := os.Stat(filepath.Join(l.dir, "a/b/c"))
	must.NoError(t, err)
	must.True(t, fi.IsDir())
	must.NoError(t, sub.Chmod(0o777|fs.ModeSticky))
	fi, err = os.Stat(filepath.Join(l.dir, "a/b/c"))
	must.NoError(t, err)
	must.Eq(t, 0o777|fs.ModeSticky|fs.ModeDir, fi.Mode())

	// Again, on what exists.
	again, err := l.d.MkdirAll("a/b/c", 0o750)
	must.NoError(t, err)
	again.Close()

	must.NoError(t, os.WriteFile(filepath.Join(l.dir, "file"), nil, 0o644))
	_, err = l.d.MkdirAll("file/x", 0o755)
	must.ErrorIs(t, err, syscall.ENOTDIR)
}

func TestDir_OpenFileRegularOnly(t *testing.T) {
	l := newLayout(t)
	f, err := l.d.OpenFile("a.log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must.NoError(t, err)
	_, err = f.WriteString("one\n")
	must.NoError(t, err)
	f.Close()
	f, err = l.d.OpenFile("a.log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must.NoError(t, err)
	_, err = f.WriteString("two\n")
	must.NoError(t, err)
	f.Close()
	b, err := os.ReadFile(filepath.Join(l.dir, "a.log"))
	must.NoError(t, err)
	must.Eq(t, "one\ntwo\n", string(b))

	l.symlink(t, l.sentinel, "to-sentinel")
	l.symlink(t, "a.log", "to-inside")
	must.NoError(t, os.Link(l.sentinel, filepath.Join(l.dir, "hard")))
	must.NoError(t, syscall.Mkfifo(filepath.Join(l.dir, "fifo"), 0o644))

	cases := map[string]error{
		"to-sentinel": ErrSymlink,
		"to-inside":   ErrSymlink,
		"hard":        ErrHardLink,
		"fifo":        ErrNotRegular,
	}
	for rel, want := range cases {
		for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_TRUNC, os.O_WRONLY | os.O_CREATE | os.O_APPEND} {
			_, err := openWithin(t, l.d, rel, flag)
			must.ErrorIs(t, err, want, must.Sprintf("%s, flag %#x", rel, flag))
		}
		_, err := openWithin(t, l.d, rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
		must.ErrorIs(t, err, fs.ErrExist, must.Sprintf("%s, exclusive", rel))
	}
	must.NoError(t, os.Remove(filepath.Join(l.dir, "hard")))
	l.untouched(t)
}

// openWithin opens rel through d, failing t if the open blocks: what a
// named pipe does to an open that follows it.
func openWithin(t *testing.T, d *Dir, rel string, flag int) (*os.File, error) {
	t.Helper()
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := d.OpenFile(rel, flag, 0o644)
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		if r.f != nil {
			r.f.Close()
		}
		return r.f, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("OpenFile(%q) blocked", rel)
		return nil, nil
	}
}

func TestDir_OpenFileNeverOpensADevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a device node needs root")
	}
	l := newLayout(t)
	// /dev/null's numbers: opening it does no harm, and the file stands
	// for a disk a task could name the same way.
	dev := filepath.Join(l.dir, "web.stdout.0")
	must.NoError(t, syscall.Mknod(dev, syscall.S_IFCHR|0o644, 1<<8|3))
	_, err := openWithin(t, l.d, "web.stdout.0", os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	must.ErrorIs(t, err, ErrNotRegular)
}

func TestDir_CreateTempRemoveRename(t *testing.T) {
	l := newLayout(t)
	f, name, err := l.d.CreateTemp(".token-*.tmp")
	must.NoError(t, err)
	must.StrHasPrefix(t, ".token-", name)
	must.StrHasSuffix(t, ".tmp", name)
	f.Close()
	fi, err := os.Stat(filepath.Join(l.dir, name))
	must.NoError(t, err)
	must.Eq(t, fs.FileMode(0o600), fi.Mode())

	l.symlink(t, l.sentinel, "token")
	must.NoError(t, l.d.Rename(name, "token"))
	fi, err = os.Lstat(filepath.Join(l.dir, "token"))
	must.NoError(t, err)
	must.True(t, fi.Mode().IsRegular(), must.Sprint("the link was replaced, not followed"))

	l.symlink(t, l.outside, "out")
	must.NoError(t, l.d.Remove("out"))
	must.ErrorIs(t, l.d.Remove("../x"), ErrEscapes)
	must.ErrorIs(t, l.d.Rename("token", "a/b"), ErrEscapes)

	names, err := l.d.Names()
	must.NoError(t, err)
	must.Eq(t, []string{"token"}, names)
	l.untouched(t)
}

func TestDir_RemoveAllFollowsNoLink(t *testing.T) {
	l := newLayout(t)
	must.NoError(t, os.MkdirAll(filepath.Join(l.dir, "state/run/deep"), 0o755))
	must.NoError(t, os.WriteFile(filepath.Join(l.dir, "state/run/deep/f"), nil, 0o644))
	l.symlink(t, l.outside, "state/run/out")
	l.symlink(t, l.outside, "state/run/deep/out")

	must.NoError(t, l.d.RemoveAll("state/run"))
	_, err := os.Lstat(filepath.Join(l.dir, "state/run"))
	must.ErrorIs(t, err, fs.ErrNotExist)
	must.NoError(t, l.d.RemoveAll("state/run"), must.Sprint("gone already is fine"))
	l.untouched(t)

	// A link on the way is refused, not followed.
	l.symlink(t, l.outside, "via")
	must.ErrorIs(t, l.d.RemoveAll("via/sentinel"), ErrSymlink)
	l.untouched(t)
}

func TestDir_FromFile(t *testing.T) {
	l := newLayout(t)
	f, err := os.Open(l.dir)
	must.NoError(t, err)
	d, err := FromFile(f)
	must.NoError(t, err)
	defer d.Close()
	_, err = d.MkdirAll("x", 0o755)
	must.NoError(t, err)

	file, err := os.Open(l.sentinel)
	must.NoError(t, err)
	defer file.Close()
	_, err = FromFile(file)
	must.ErrorIs(t, err, syscall.ENOTDIR)
}

func TestDir_NamesIsRepeatable(t *testing.T) {
	l := newLayout(t)
	for _, n := range []string{"a", "b"} {
		must.NoError(t, os.WriteFile(filepath.Join(l.dir, n), nil, 0o644))
	}
	for range 2 {
		names, err := l.d.Names()
		must.NoError(t, err)
		slices.Sort(names)
		must.Eq(t, []string{"a", "b"}, names)
	}
}

func TestDir_ErrorsNameThePath(t *testing.T) {
	l := newLayout(t)
	l.symlink(t, l.outside, "logs")
	_, err := l.d.OpenFile("logs/web.stdout.0", os.O_WRONLY|os.O_CREATE, 0o644)
	var pe *fs.PathError
	must.True(t, errors.As(err, &pe))
	must.Eq(t, filepath.Join(l.dir, "logs"), pe.Path, must.Sprint("the name that is a link"))
	must.EqError(t, err, "open "+filepath.Join(l.dir, "logs")+": is a symbolic link: links are not followed in a directory tasks can write")

	l.symlink(t, l.sentinel, "web.stdout.0")
	_, err = l.d.OpenFile("web.stdout.0", os.O_WRONLY|os.O_CREATE, 0o644)
	must.EqError(t, err, "open "+filepath.Join(l.dir, "web.stdout.0")+": is a symbolic link: links are not followed in a directory tasks can write")
}
