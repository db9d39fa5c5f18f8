package beneath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// openPathAttempts bounds the tries of an openat2 that a concurrent
// rename makes the kernel refuse (EAGAIN): it cannot then prove the path
// stayed beneath.
const openPathAttempts = 16

// OpenPath opens rel with O_PATH: a descriptor that names the file,
// without opening it for reading or writing, whatever its kind. Unlike
// the other methods it follows symbolic links, as long as each leads to
// a place beneath the directory; an absolute one, or one that climbs out,
// is refused (ErrEscapes). The kernel resolves it in one step
// (openat2 with RESOLVE_BENEATH), so nothing renamed meanwhile can lead
// it out.
func (d *Dir) OpenPath(rel string) (*os.File, error) {
	if _, err := splitLocal(rel); err != nil {
		return nil, d.pathError("open", rel, err)
	}
	how := &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	for range openPathAttempts {
		fd, err := unix.Openat2(d.fd, filepath.Clean(rel), how)
		runtime.KeepAlive(d)
		switch {
		case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EXDEV):
			return nil, d.pathError("open", rel, ErrEscapes)
		case err != nil:
			return nil, d.pathError("open", rel, err)
		}
		return os.NewFile(uintptr(fd), filepath.Join(d.Name(), rel)), nil
	}
	return nil, d.pathError("open", rel, fmt.Errorf("kept changing while it was resolved: %w", unix.EAGAIN))
}

// Reopen opens the file that f, from OpenPath, names, with flag: the same
// file, whatever its name leads to by now. The caller checks its kind
// first (f.Stat), so that nothing but what it means to read is opened.
func Reopen(f *os.File, flag int) (*os.File, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	var oerr error
	if err := raw.Control(func(pfd uintptr) { fd, oerr = reopen(int(pfd), flag) }); err != nil {
		return nil, err
	}
	if oerr != nil {
		return nil, &fs.PathError{Op: "reopen", Path: f.Name(), Err: oerr}
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}
