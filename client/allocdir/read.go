package allocdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/drover-io/drover/internal/beneath"
)

// What of an allocation directory may be read. Its tasks write there, so
// whatever a file looks like by its name is the tasks' to decide: a task
// can leave a named pipe whose open or read never returns, a device, a
// socket, or a hard link to a file elsewhere on the machine (a link made
// to /etc/shadow by a task running as root is, by its name, a file of the
// allocation). A Reader opens only regular files and directories, never
// blocks on what it opens, and refuses a file with more than one link
// unless every link to it is inside the allocation directory.

// MaxLinkSearchEntries bounds how many entries of an allocation directory
// a Reader looks at to find every link to a multiply linked file. A
// directory too big to search in full refuses the read rather than serve
// a file it could not prove is the allocation's own.
const MaxLinkSearchEntries = 100_000

// UnreadableError says why a path of an allocation directory is not
// served.
type UnreadableError struct {
	// Path is the path as asked for, relative to the allocation directory.
	Path string
	// Reason completes "path %q is ...".
	Reason string
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("path %q is %s", e.Path, e.Reason)
}

// Reader reads files of one allocation directory. Every path is resolved
// inside the directory: one that leaves it, by ".." or by a symbolic link,
// is refused by the operating system (see os.Root and package beneath).
type Reader struct {
	root *os.Root
	dir  *beneath.Dir
	// searchLimit is MaxLinkSearchEntries, lowered by tests.
	searchLimit int
	// resolved, when a test sets it, is called between resolving a path
	// and opening the file: when a task could swap the file.
	resolved func(rel string)
}

// OpenReader opens the allocation directory at dir for reading.
func OpenReader(dir string) (*Reader, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	d, err := beneath.Open(dir)
	if err != nil {
		root.Close()
		return nil, err
	}
	return &Reader{root: root, dir: d, searchLimit: MaxLinkSearchEntries}, nil
}

// Close releases the directory.
func (r *Reader) Close() error {
	return errors.Join(r.root.Close(), r.dir.Close())
}

// Stat describes rel, following symbolic links inside the directory. It
// reads no file, so it describes any kind of file.
func (r *Reader) Stat(rel string) (fs.FileInfo, error) {
	return r.root.Stat(rel)
}

// Open opens rel, a regular file or a directory, for reading. Anything
// else is an *UnreadableError, and is not opened (see openKnown). The
// file is opened without blocking, and what was opened is checked again
// before anything is read from it.
func (r *Reader) Open(rel string) (*os.File, fs.FileInfo, error) {
	f, before, err := r.openKnown(rel)
	if err != nil {
		return nil, nil, err
	}
	st, err := r.checkOpened(rel, f, before)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// ReadDir lists the directory rel, opened as Open opens it.
func (r *Reader) ReadDir(rel string) ([]fs.DirEntry, error) {
	d, fi, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if !fi.IsDir() {
		return nil, &UnreadableError{Path: rel, Reason: "not a directory"}
	}
	return d.ReadDir(-1)
}

// checkOpened checks the file Open opened: still the one it looked at, of
// a readable kind, and linked from nowhere outside the directory.
func (r *Reader) checkOpened(rel string, f *os.File, before fs.FileInfo) (fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(before, st) {
		return nil, &UnreadableError{Path: rel, Reason: "being replaced: it changed while it was opened"}
	}
	if err := readable(rel, st); err != nil {
		return nil, err
	}
	if st.Mode().IsRegular() && linkCount(st) > 1 {
		if err := r.linksInside(rel, f, st); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// readable refuses every kind of file but regular files and directories,
// naming the kind.
func readable(rel string, fi fs.FileInfo) error {
	mode := fi.Mode()
	if mode.IsRegular() || mode.IsDir() {
		return nil
	}
	return &UnreadableError{Path: rel, Reason: kindOf(mode) + ": only regular files and directories can be read"}
}

// kindOf names the kind of a file that is neither regular nor a directory.
func kindOf(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file (mode " + mode.String() + ")"
}

// linksInside proves that every link to the multiply linked file f (at
// rel) is inside the directory: it counts the directory's entries that
// are that file, and wants as many as the file has links. The file's link
// count and change time are read again after the search, so that a link
// made or removed while it ran (either changes both) refuses the read.
func (r *Reader) linksInside(rel string, f *os.File, st fs.FileInfo) error {
	want := linkCount(st)
	found, complete, err := r.countLinks(st)
	if err != nil {
		return fmt.Errorf("search the links to %q: %w", rel, err)
	}
	after, err := f.Stat()
	if err != nil {
		return err
	}
	switch {
	case !complete:
		return &UnreadableError{Path: rel, Reason: fmt.Sprintf(
			"a hard link (%d links) in an allocation directory of more than %d entries, too many to check that every link is inside it", want, r.searchLimit)}
	case found != want || linkCount(after) != want || !changeTime(after).Equal(changeTime(st)):
		return &UnreadableError{Path: rel, Reason: fmt.Sprintf(
			"a hard link to a file outside the allocation directory (%d links, %d of them inside it)", want, found)}
	}
	return nil
}

// countLinks counts the entries of the directory that are the file st
// describes, looking at no more than r.searchLimit of them;
// complete is false when it stopped there. Each entry is looked at
// through the root, without following links, so a directory swapped for a
// symbolic link during the search cannot make a file elsewhere count.
func (r *Reader) countLinks(st fs.FileInfo) (found uint64, complete bool, err error) {
	seen := 0
	dirs := []string{"."}
	for len(dirs) > 0 {
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		names, err := r.readDirNames(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed meanwhile
			}
			return 0, false, err
		}
		for _, name := range names {
			if seen++; seen > r.searchLimit {
				return found, false, nil
			}
			p := path.Join(dir, name)
			fi, err := r.root.Lstat(p)
			if err != nil {
				continue // removed meanwhile
			}
			switch {
			case fi.IsDir():
				dirs = append(dirs, p)
			case fi.Mode().IsRegular() && os.SameFile(fi, st):
				found++
			}
		}
	}
	return found, true, nil
}

// readDirNames lists the names in dir, a directory inside the root.
func (r *Reader) readDirNames(dir string) ([]string, error) {
	d, err := r.root.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
