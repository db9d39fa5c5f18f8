package beneath

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Why a path is refused. Each comes wrapped in an *fs.PathError naming
// the path.
var (
	// ErrSymlink: a name on the path is a symbolic link.
	ErrSymlink = errors.New("is a symbolic link: links are not followed in a directory tasks can write")
	// ErrNotRegular: the file is a device, a named pipe or a socket.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrHardLink: the file has more than one link, so it may be a file
	// outside the directory too.
	ErrHardLink = errors.New("is a hard link (more than one link to the file)")
	// ErrEscapes: the path is absolute or climbs out with "..".
	ErrEscapes = errors.New("leaves its directory")
)

// maxRemoveDepth bounds how deep RemoveAll descends: a tree deeper than
// that is left, with an error, rather than exhaust the stack.
const maxRemoveDepth = 128

// Dir is an open directory; every path given to its methods is relative
// to it and resolved beneath it. It is safe for concurrent use.
type Dir struct {
	f  *os.File
	fd int
}

// Open opens the directory at path, which the caller trusts: its text is
// resolved as usual, symbolic links included.
func Open(path string) (*Dir, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return &Dir{f: f, fd: int(f.Fd())}, nil
}

// FromFile makes a Dir of f, an open directory (one inherited from the
// process that opened it beneath its own directory, for instance). The
// Dir owns f.
func FromFile(f *os.File) (*Dir, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: f.Name(), Err: unix.ENOTDIR}
	}
	return &Dir{f: f, fd: int(f.Fd())}, nil
}

// Name is the directory's path as it was opened, for messages.
func (d *Dir) Name() string { return d.f.Name() }

// File is the open directory, to hand to another process.
func (d *Dir) File() *os.File { return d.f }

// Close closes the directory.
func (d *Dir) Close() error { return d.f.Close() }

// Stat describes the directory.
func (d *Dir) Stat() (fs.FileInfo, error) { return d.f.Stat() }

// Chmod sets the directory's mode, sticky bit included.
func (d *Dir) Chmod(mode fs.FileMode) error { return d.f.Chmod(mode) }

// Chown gives the directory to uid and gid.
func (d *Dir) Chown(uid, gid int) error { return d.f.Chown(uid, gid) }

// OpenDir opens the directory rel.
func (d *Dir) OpenDir(rel string) (*Dir, error) {
	return d.walk("open", rel, false, 0)
}

// MkdirAll opens the directory rel, first making those on its way that
// do not exist, with mode perm (less the umask).
func (d *Dir) MkdirAll(rel string, perm fs.FileMode) (*Dir, error) {
	return d.walk("mkdir", rel, true, perm)
}

// OpenFile opens the regular file rel as os.OpenFile does, flag
// O_CREATE creating it with perm. A name on the way, or the file itself,
// that is a symbolic link is refused (ErrSymlink), and so is a file that
// is not a regular one (ErrNotRegular) or is linked more than once
// (ErrHardLink).
func (d *Dir) OpenFile(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	parent, name, err := d.parentOf("open", rel)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	fd, err := openRegular(parent.fd, name, flag, uint32(perm.Perm()))
	runtime.KeepAlive(parent)
	if err != nil {
		return nil, d.pathError("open", rel, err)
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.Name(), rel)), nil
}

// CreateTemp creates a new regular file in the directory, named pattern
// with a random string in place of its last "*" (or at its end), open for
// reading and writing and readable by its owner only.
func (d *Dir) CreateTemp(pattern string) (*os.File, string, error) {
	if strings.ContainsRune(pattern, '/') {
		return nil, "", d.pathError("createtemp", pattern, ErrEscapes)
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for range 100 {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10) + suffix
		fd, err := openat(d.fd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600)
		runtime.KeepAlive(d)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", d.pathError("createtemp", name, err)
		}
		return os.NewFile(uintptr(fd), filepath.Join(d.Name(), name)), name, nil
	}
	return nil, "", d.pathError("createtemp", pattern, unix.EEXIST)
}

// Remove removes the file or empty directory name, a name in the
// directory itself; a symbolic link is removed, not followed.
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return d.pathError("remove", name, err)
	}
	err := unix.Unlinkat(d.fd, name, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		// EPERM is how some systems refuse to unlink a directory.
		if rerr := unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR); rerr == nil || !errors.Is(rerr, unix.ENOTDIR) {
			err = rerr
		}
	}
	runtime.KeepAlive(d)
	if err != nil {
		return d.pathError("remove", name, err)
	}
	return nil
}

// RemoveAll removes rel and everything beneath it; one that does not
// exist is no error. It follows no symbolic link: a link is removed, not
// what it names.
func (d *Dir) RemoveAll(rel string) error {
	parent, name, err := d.parentOf("removeall", rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	if err := removeAllAt(parent.fd, name, 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return d.pathError("removeall", rel, err)
	}
	return nil
}

// Rename renames oldName to newName, both names in the directory itself,
// replacing what newName was (a symbolic link is replaced, not followed).
func (d *Dir) Rename(oldName, newName string) error {
	for _, n := range []string{oldName, newName} {
		if err := checkName(n); err != nil {
			return d.pathError("rename", n, err)
		}
	}
	err := unix.Renameat(d.fd, oldName, d.fd, newName)
	runtime.KeepAlive(d)
	if err != nil {
		return d.pathError("rename", oldName, err)
	}
	return nil
}

// Names lists the names in the directory, unsorted.
func (d *Dir) Names() ([]string, error) {
	fd, err := openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	runtime.KeepAlive(d)
	if err != nil {
		return nil, d.pathError("readdir", ".", err)
	}
	f := os.NewFile(uintptr(fd), d.Name())
	defer f.Close()
	return f.Readdirnames(-1)
}

// walk opens the directory rel one name at a time, each relative to the
// last, never following a symbolic link; with mkdir it makes the missing
// ones.
func (d *Dir) walk(op, rel string, mkdir bool, perm fs.FileMode) (*Dir, error) {
	parts, err := splitLocal(rel)
	if err != nil {
		return nil, d.pathError(op, rel, err)
	}
	cur, err := openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	runtime.KeepAlive(d)
	if err != nil {
		return nil, d.pathError(op, rel, err)
	}
	for i, name := range parts {
		next, err := openDirAt(cur, name, mkdir, perm)
		unix.Close(cur)
		if err != nil {
			// Named up to the name that failed, the link for instance.
			return nil, d.pathError(op, filepath.Join(parts[:i+1]...), err)
		}
		cur = next
	}
	return &Dir{f: os.NewFile(uintptr(cur), filepath.Join(d.Name(), rel)), fd: cur}, nil
}

// parentOf opens the directory rel is in, and returns it and rel's last
// name.
func (d *Dir) parentOf(op, rel string) (*Dir, string, error) {
	parts, err := splitLocal(rel)
	if err == nil && len(parts) == 0 {
		err = ErrEscapes // the directory itself has no name in it
	}
	if err != nil {
		return nil, "", d.pathError(op, rel, err)
	}
	parent, err := d.OpenDir(filepath.Join(parts[:len(parts)-1]...))
	if err != nil {
		return nil, "", err
	}
	return parent, parts[len(parts)-1], nil
}

func (d *Dir) pathError(op, rel string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: op, Path: filepath.Join(d.Name(), rel), Err: err}
}

// openDirAt opens the directory name in dirfd without following a
// symbolic link, making it first if mkdir and it does not exist.
func openDirAt(dirfd int, name string, mkdir bool, perm fs.FileMode) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW
	fd, err := openat(dirfd, name, flags, 0)
	if mkdir && errors.Is(err, unix.ENOENT) {
		if err := unix.Mkdirat(dirfd, name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, err
		}
		fd, err = openat(dirfd, name, flags, 0)
	}
	if err != nil {
		return -1, kindError(dirfd, name, err)
	}
	return fd, nil
}

// removeAllAt removes name in dirfd and, if it is a directory, what is in
// it, never following a symbolic link.
func removeAllAt(dirfd int, name string, depth int) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return err
	}
	if depth >= maxRemoveDepth {
		return fmt.Errorf("more than %d directories deep", maxRemoveDepth)
	}
	fd, oerr := openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if oerr != nil {
		return err // not a directory: the unlink's error says why
	}
	dir := os.NewFile(uintptr(fd), name)
	for {
		names, rerr := dir.Readdirnames(256)
		for _, n := range names {
			if err := removeAllAt(fd, n, depth+1); err != nil && !errors.Is(err, unix.ENOENT) {
				dir.Close()
				return err
			}
		}
		if rerr != nil || len(names) == 0 {
			break
		}
	}
	dir.Close()
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

// checkRegular refuses what st describes unless it is a regular file
// linked once.
func checkRegular(st *unix.Stat_t) error {
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return ErrSymlink
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return ErrNotRegular
	case st.Nlink > 1:
		return ErrHardLink
	}
	return nil
}

// kindError turns the error of an O_NOFOLLOW open of name into
// ErrSymlink when name is a symbolic link, which systems report as ELOOP
// or otherwise.
func kindError(dirfd int, name string, err error) error {
	var st unix.Stat_t
	if serr := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return ErrSymlink
	}
	return err
}

// openat is unix.Openat with O_CLOEXEC, retried when interrupted.
func openat(dirfd int, name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_CLOEXEC, perm)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// splitLocal splits rel, a relative path that stays where it starts, into
// its names; "" and "." are none.
func splitLocal(rel string) ([]string, error) {
	if rel == "" || rel == "." {
		return nil, nil
	}
	if !filepath.IsLocal(rel) {
		return nil, ErrEscapes
	}
	clean := filepath.Clean(rel)
	if clean == "." {
		return nil, nil
	}
	return strings.Split(clean, string(filepath.Separator)), nil
}

// checkName refuses anything but one name in a directory.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return ErrEscapes
	}
	return nil
}
