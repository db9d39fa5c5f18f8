package isolate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/drover-io/drover/internal/beneath"
)

func init() {
	// Capabilities and credentials are a thread's: the init changes them
	// on the thread that then execs the task, the main one.
	if len(os.Args) == 2 && os.Args[1] == InitArg {
		runtime.LockOSThread()
	}
}

// IsInit reports whether args (os.Args[1:]) run the init.
func IsInit(args []string) bool { return len(args) == 1 && args[0] == InitArg }

// InitMain is the init: it isolates itself as its spec says and execs the
// task. It returns only on failure, with the exit code, after reporting
// the reason on its error pipe.
func InitMain() int {
	syscall.CloseOnExec(errorFD)
	errPipe := os.NewFile(errorFD, "errors")
	err := initAndExec()
	fmt.Fprintf(errPipe, "%v", err)
	return 1
}

func initAndExec() error {
	specFile := os.NewFile(specFD, "spec")
	var spec initSpec
	err := json.NewDecoder(io.LimitReader(specFile, 16<<20)).Decode(&spec)
	specFile.Close()
	if err != nil {
		return fmt.Errorf("read the isolation spec: %w", err)
	}
	unix.Umask(0o022)
	for _, procs := range spec.CgroupProcs {
		// "0" is the writer itself, whatever its PID namespace calls it.
		if err := os.WriteFile(procs, []byte("0"), 0); err != nil {
			return fmt.Errorf("join cgroup: %w", err)
		}
	}
	if spec.HostRoot {
		return hostRootExec(&spec)
	}
	if err := buildRoot(&spec.Spec); err != nil {
		return fmt.Errorf("build the task's root: %w", err)
	}
	exe, err := lookPath(spec.Path, spec.Env)
	if err != nil {
		return err
	}
	if err := limitCaps(spec.Caps); err != nil {
		return err
	}
	if err := becomeUser(spec.User); err != nil {
		return err
	}
	if err := unix.Exec(exe, spec.Args, spec.Env); err != nil {
		return fmt.Errorf("exec %s: %w", spec.Path, err)
	}
	return nil
}

// buildRoot makes the task directory the root of this mount namespace:
// the chroot_env paths bound read-only, the shared alloc directory at
// /alloc, a /proc of the task's PID namespace, a small /dev, the
// supervisors' state hidden, the host volumes; then pivots into it and detaches the host's
// file systems. Every mount point inside the task directory, which the
// task could have filled with links in an earlier run, is opened beneath
// it and mounted on through the open file.
func buildRoot(spec *Spec) error {
	// Nothing mounted here may reach the host's mount namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	allocRoot, err := beneath.Open(spec.AllocRoot)
	if err != nil {
		return err
	}
	defer allocRoot.Close()
	taskDir, err := allocRoot.OpenDir(spec.TaskName)
	if err != nil {
		return err
	}
	defer taskDir.Close()
	allocDir, err := allocRoot.OpenDir(spec.AllocDirName)
	if err != nil {
		return err
	}
	defer allocDir.Close()

	// The root must be a mount of its own to pivot into: a bind of the
	// task directory, mounted on the task directory.
	rootFD, err := cloneTree(int(taskDir.File().Fd()), "", false)
	if err != nil {
		return fmt.Errorf("bind the task directory: %w", err)
	}
	if err := moveMount(rootFD, taskDir); err != nil {
		return fmt.Errorf("mount the task directory: %w", err)
	}
	// Reopened, the task directory is now the mount's top.
	root, err := allocRoot.OpenDir(spec.TaskName)
	if err != nil {
		return err
	}
	defer root.Close()

	if err := bindChrootEnv(root, spec.ChrootEnv); err != nil {
		return err
	}
	allocFD, err := cloneTree(int(allocDir.File().Fd()), "", false)
	if err != nil {
		return fmt.Errorf("bind the alloc directory: %w", err)
	}
	if err := mountAt(root, "alloc", allocFD); err != nil {
		return err
	}
	if err := mountProc(root); err != nil {
		return err
	}
	if err := mountDev(root); err != nil {
		return err
	}
	if err := hideDir(root, ".supervisor"); err != nil {
		return err
	}
	if err := bindVolumes(root, spec.Volumes); err != nil {
		return err
	}
	return pivot(root)
}

// cloneTree clones the mount tree at dirfd/name, read-only if asked.
func cloneTree(dirfd int, name string, readOnly bool) (int, error) {
	flags := uint(unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC | unix.AT_RECURSIVE)
	if name == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	fd, err := unix.OpenTree(dirfd, name, flags)
	if err != nil {
		return -1, err
	}
	if readOnly {
		attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, attr); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("make read-only: %w", err)
		}
	}
	return fd, nil
}

// moveMount attaches the detached mount fd on the open directory or file
// to, and closes fd.
func moveMount(fd int, to *beneath.Dir) error {
	defer unix.Close(fd)
	return unix.MoveMount(fd, "", int(to.File().Fd()), "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// mountAt attaches the detached mount fd on the directory rel beneath
// root, making it if need be.
func mountAt(root *beneath.Dir, rel string, fd int) error {
	dir, err := root.MkdirAll(rel, 0o755)
	if err != nil {
		unix.Close(fd)
		return fmt.Errorf("mount point %s: %w", rel, err)
	}
	defer dir.Close()
	if err := moveMount(fd, dir); err != nil {
		return fmt.Errorf("mount on %s: %w", rel, err)
	}
	return nil
}

// bindChrootEnv binds each host path of env read-only at its place in
// root; host paths that do not exist are left out, as on a host without
// /lib32.
func bindChrootEnv(root *beneath.Dir, env map[string]string) error {
	// Shorter destinations first, so that /usr is mounted before
	// /usr/local would be mounted on it.
	dests := make([]string, 0, len(env))
	bySrc := map[string]string{}
	for src, dest := range env {
		dests = append(dests, dest)
		bySrc[dest] = src
	}
	slices.SortFunc(dests, func(a, b string) int { return len(a) - len(b) })
	for _, dest := range dests {
		src := bySrc[dest]
		rel := strings.TrimPrefix(path.Clean("/"+dest), "/")
		if rel == "" {
			return fmt.Errorf("chroot_env %s: cannot replace the task's root", src)
		}
		info, err := os.Stat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("chroot_env %s: %w", src, err)
		}
		fd, err := cloneTree(unix.AT_FDCWD, src, true)
		if err != nil {
			return fmt.Errorf("chroot_env %s: %w", src, err)
		}
		if info.IsDir() {
			err = mountAt(root, rel, fd)
		} else {
			err = mountOnFile(root, rel, fd)
		}
		if err != nil {
			return fmt.Errorf("chroot_env %s: %w", src, err)
		}
	}
	return nil
}

// mountOnFile attaches fd on the file rel beneath root, making it (and
// its directory) if need be.
func mountOnFile(root *beneath.Dir, rel string, fd int) error {
	parent, err := root.MkdirAll(filepath.Dir(rel), 0o755)
	if err != nil {
		unix.Close(fd)
		return err
	}
	defer parent.Close()
	f, err := parent.OpenFile(filepath.Base(rel), os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		unix.Close(fd)
		return err
	}
	defer f.Close()
	defer unix.Close(fd)
	return unix.MoveMount(fd, "", int(f.Fd()), "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// newMount makes a detached mount of a fresh file system.
func newMount(fstype string, attrs int, options map[string]string) (int, error) {
	fsfd, err := unix.Fsopen(fstype, unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("%s: %w", fstype, err)
	}
	defer unix.Close(fsfd)
	for k, v := range options {
		if err := unix.FsconfigSetString(fsfd, k, v); err != nil {
			return -1, fmt.Errorf("%s option %s: %w", fstype, k, err)
		}
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return -1, fmt.Errorf("%s: %w", fstype, err)
	}
	fd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, attrs)
	if err != nil {
		return -1, fmt.Errorf("%s: %w", fstype, err)
	}
	return fd, nil
}

// mountProc mounts a proc of this process's PID namespace at /proc.
func mountProc(root *beneath.Dir) error {
	fd, err := newMount("proc", unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, nil)
	if err != nil {
		return err
	}
	return mountAt(root, "proc", fd)
}

// devices are the device nodes the task's /dev holds.
var devices = []struct {
	name         string
	major, minor uint32
}{
	{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7},
	{"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0},
}

// mountDev mounts a small tmpfs at /dev with the usual device nodes and
// links, and /dev/shm.
func mountDev(root *beneath.Dir) error {
	fd, err := newMount("tmpfs", unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, map[string]string{"mode": "755", "size": "65536"})
	if err != nil {
		return err
	}
	if err := mountAt(root, "dev", fd); err != nil {
		return err
	}
	dev, err := root.OpenDir("dev")
	if err != nil {
		return err
	}
	defer dev.Close()
	dfd := int(dev.File().Fd())
	for _, d := range devices {
		if err := unix.Mknodat(dfd, d.name, unix.S_IFCHR|0o666, int(unix.Mkdev(d.major, d.minor))); err != nil {
			return fmt.Errorf("/dev/%s: %w", d.name, err)
		}
		// The umask took bits off the mode.
		if err := unix.Fchmodat(dfd, d.name, 0o666, 0); err != nil {
			return fmt.Errorf("/dev/%s: %w", d.name, err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := unix.Symlinkat(target, dfd, name); err != nil {
			return fmt.Errorf("/dev/%s: %w", name, err)
		}
	}
	shm, err := newMount("tmpfs", unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, map[string]string{"mode": "1777"})
	if err != nil {
		return err
	}
	return mountAt(dev, "shm", shm)
}

// hideDir mounts an empty read-only tmpfs on the directory rel beneath
// root, where it exists.
func hideDir(root *beneath.Dir, rel string) error {
	dir, err := root.OpenDir(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	fd, err := newMount("tmpfs", unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, map[string]string{"size": "4096"})
	if err != nil {
		return err
	}
	if err := moveMount(fd, dir); err != nil {
		return fmt.Errorf("hide %s: %w", rel, err)
	}
	return nil
}

// pivot makes root this mount namespace's root and detaches the old one,
// so that no way back to the host's files is left.
func pivot(root *beneath.Dir) error {
	if err := unix.Fchdir(int(root.File().Fd())); err != nil {
		return err
	}
	// With both arguments ".", the old root ends up stacked under the new
	// one, and is detached from there.
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the host's root: %w", err)
	}
	return unix.Chdir("/")
}

// lookPath finds the task's command inside its root: a path as given
// (relative ones from the task directory, now /), a bare name in /local,
// the task directory, then the task's PATH.
func lookPath(command string, env []string) (string, error) {
	if strings.Contains(command, "/") {
		p := path.Join("/", command)
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf(`config key "command": %w`, err)
		}
		return p, nil
	}
	pathEnv := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	dirs := append([]string{"/local", "/"}, filepath.SplitList(pathEnv)...)
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		p := path.Join(dir, command)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf(`config key "command": executable %q not found in the task's root (/local, /, PATH %q)`, command, pathEnv)
}

func checkExecutable(p string) error {
	info, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("executable %s: %w", p, errors.Unwrap(err))
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// limitCaps drops every capability but caps from this thread's bounding
// set, and from its inheritable and ambient sets, so that the task, even
// as root, can never hold another.
func limitCaps(caps []string) error {
	keep := map[int]bool{}
	all := slices.Contains(caps, "all")
	for _, c := range caps {
		if n, ok := capNumber(c); ok {
			keep[n] = true
		}
	}
	last := lastCap()
	for n := 0; n <= last; n++ {
		if all || keep[n] {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(n), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", n, err)
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	for n := 0; n <= last; n++ {
		if !all && !keep[n] {
			data[n/32].Inheritable &^= 1 << (n % 32)
		}
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("set capabilities: %w", err)
	}
	return nil
}

// lastCap is the highest capability number the kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return len(capNames) - 1
	}
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d", &n); err != nil {
		return len(capNames) - 1
	}
	return n
}

// becomeUser switches this thread to the task's user. The calls are made
// on this thread alone: it is the one that execs the task.
func becomeUser(u *User) error {
	if u == nil {
		return nil
	}
	groups := u.Groups
	if len(groups) == 0 {
		groups = []uint32{u.GID}
	}
	if e := setgroups(groups); e != 0 {
		return fmt.Errorf("setgroups: %w", e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(u.GID), uintptr(u.GID), uintptr(u.GID)); e != 0 {
		return fmt.Errorf("setresgid %d: %w", u.GID, e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(u.UID), uintptr(u.UID), uintptr(u.UID)); e != 0 {
		return fmt.Errorf("setresuid %d: %w", u.UID, e)
	}
	return nil
}
