package docker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/beneath"
)

// maxUnmounts bounds the unmounts of one staged path: mounts stacked on
// it are taken off one at a time.
const maxUnmounts = 8

// staging is one container start's mounts of allocation paths: a
// directory, <mounter dir>/<container name>, holding a mount point per
// bind, and the allocation directory open to resolve them in.
type staging struct {
	dir   string
	alloc *beneath.Dir
}

func (m *mounter) newStaging(cfg *drivers.TaskConfig, name string) (*staging, error) {
	root := cfg.AllocRoot()
	if root == "" {
		return nil, errors.New("the task has no allocation directory")
	}
	alloc, err := beneath.Open(root)
	if err != nil {
		return nil, fmt.Errorf("open the allocation directory: %w", err)
	}
	s := &staging{dir: filepath.Join(m.dir, name), alloc: alloc}
	// A start of this name that an agent crash interrupted may have left
	// its mounts.
	if err := unstage(s.dir); err != nil {
		alloc.Close()
		return nil, err
	}
	if err := os.Mkdir(s.dir, 0o700); err != nil {
		alloc.Close()
		return nil, fmt.Errorf("create the directory for the container's mounts: %w", err)
	}
	return s, nil
}

// add resolves b's source beneath the allocation directory and mounts
// it on the bind's own mount point in the staging directory, which it
// returns.
func (s *staging) add(i int, b bindSpec) (string, error) {
	src, err := openSource(s.alloc, b)
	if err != nil {
		return "", err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return "", err
	}
	target := filepath.Join(s.dir, strconv.Itoa(i))
	if err := mountPoint(target, fi); err != nil {
		return "", err
	}
	// What src names, by its descriptor: whatever the path leads to now.
	proc := "/proc/self/fd/" + strconv.Itoa(int(src.Fd()))
	if err := unix.Mount(proc, target, "", unix.MS_BIND, ""); err != nil {
		os.Remove(target)
		if errors.Is(err, unix.EPERM) {
			err = fmt.Errorf("%w: the docker driver mounts the allocation's directories for the engine itself, and needs the agent to run as root (CAP_SYS_ADMIN)", err)
		}
		return "", fmt.Errorf("mount %s: %w", src.Name(), err)
	}
	return target, nil
}

// openSource opens b's source beneath the allocation directory: a
// volume's following links that stay inside, the task's own directories
// following none.
func openSource(alloc *beneath.Dir, b bindSpec) (*os.File, error) {
	if b.followLinks {
		return alloc.OpenPath(b.source)
	}
	d, err := alloc.OpenDir(b.source)
	if err != nil {
		return nil, err
	}
	return d.File(), nil
}

// mountPoint makes the mount point for what fi describes: a directory
// for a directory, an empty file for a regular file linked once. Nothing
// else is mounted: a device or a pipe has no business in a container's
// binds, and a hard link may be a file of the machine's too.
func mountPoint(target string, fi fs.FileInfo) error {
	mode := fi.Mode()
	switch {
	case mode.IsDir():
		return os.Mkdir(target, 0o700)
	case !mode.IsRegular():
		return fmt.Errorf("%s is %s: only directories and regular files can be mounted", fi.Name(), kindOf(mode))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return fmt.Errorf("%s %w, and may be a file outside the allocation directory too", fi.Name(), beneath.ErrHardLink)
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// kindOf names the kind of a file that is neither a directory nor a
// regular file.
func kindOf(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file (mode " + mode.String() + ")"
}

// release unmounts and removes the staging directory.
func (s *staging) release(logger hclog.Logger) {
	s.alloc.Close()
	if err := unstage(s.dir); err != nil {
		logger.Warn("failed to remove a container's mounts", "dir", s.dir, "error", err)
	}
}

// sweep removes what an earlier driver left in the mounter's directory.
func (m *mounter) sweep() {
	names, err := readDirNames(m.dir)
	if err != nil {
		m.logger.Warn("failed to list the directory for container mounts", "dir", m.dir, "error", err)
		return
	}
	for _, name := range names {
		if err := unstage(filepath.Join(m.dir, name)); err != nil {
			m.logger.Warn("failed to remove a container's mounts", "dir", filepath.Join(m.dir, name), "error", err)
		}
	}
}

// unstage unmounts each mount point in dir and removes it, then dir. It
// never removes recursively: what a mount still covers is the
// allocation's, and stays.
func unstage(dir string) error {
	names, err := readDirNames(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		p := filepath.Join(dir, name)
		if err := unmountAll(p); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.Remove(dir)
}

// unmountAll takes every mount off p, detaching it from whatever uses it
// (the engine holds none once a container started).
func unmountAll(p string) error {
	for range maxUnmounts {
		err := unix.Unmount(p, unix.MNT_DETACH|unix.UMOUNT_NOFOLLOW)
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
			return nil // not a mount point (any more)
		}
		if err != nil {
			return fmt.Errorf("unmount %s: %w", p, err)
		}
	}
	return fmt.Errorf("unmount %s: still a mount point after %d unmounts", p, maxUnmounts)
}

func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// canMount says why the driver cannot mount allocation paths for the
// engine, if it cannot.
func canMount() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read the agent's capabilities: %w", err)
	}
	if data[unix.CAP_SYS_ADMIN/32].Effective&(1<<(unix.CAP_SYS_ADMIN%32)) == 0 {
		return errors.New("the docker driver mounts the allocation's directories for the engine itself, and needs the agent to run as root (CAP_SYS_ADMIN)")
	}
	return nil
}
