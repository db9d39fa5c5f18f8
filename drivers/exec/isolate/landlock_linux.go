package isolate

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LandlockABI is the version of the kernel's Landlock interface, 0 where
// the kernel has none (not built in, or not enabled by its lsm= list).
func LandlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}

// File system rights, by the Landlock ABI that introduced them.
const (
	fsRightsV1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM

	// fileRights are the rights that apply to a file, not a directory.
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// handledRights are every file system right the kernel's ABI knows: the
// ruleset denies each of them but where a rule grants it.
func handledRights(abi int) uint64 {
	r := uint64(fsRightsV1)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// rights are the Landlock rights of a PathAccess, before they are fitted
// to the kernel and to the kind of file.
func (a PathAccess) rights() uint64 {
	var r uint64
	if a.Read {
		r |= unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	}
	if a.Write {
		r |= unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if a.Execute {
		r |= unix.LANDLOCK_ACCESS_FS_EXECUTE
	}
	if a.Create {
		r |= unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
			unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
			unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
			unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_REFER
	}
	return r
}

// landlockRuleset makes a ruleset that denies every file system right
// the kernel knows except those rules grant, and returns its descriptor.
// Paths are opened now, as the agent's user, so that the rules are made
// whatever the task's user may open.
//
// guard, given the path a rule's opened file resolves to, says why it
// must not be unveiled: links are followed, so the check is made on what
// was opened. A rule it refuses is left out where IfExists is set (the
// defaults), and fails the task otherwise.
func landlockRuleset(rules []PathAccess, guard func(resolved string) error) (int, error) {
	abi := LandlockABI()
	if abi == 0 {
		return -1, errors.New("the kernel has no Landlock LSM (CONFIG_SECURITY_LANDLOCK, and landlock in its lsm= list): the task cannot be confined to its unveiled paths")
	}
	handled := handledRights(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled}
	// Only the first field is passed: a kernel that knows no more fields
	// accepts it, a newer one reads the rest as zero.
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr.Handled_access_fs), 0)
	if e != 0 {
		return -1, fmt.Errorf("landlock: create ruleset: %w", e)
	}
	ruleset := int(fd)
	for _, rule := range rules {
		if err := addPathRule(ruleset, rule, handled, guard); err != nil {
			unix.Close(ruleset)
			return -1, err
		}
	}
	return ruleset, nil
}

func addPathRule(ruleset int, rule PathAccess, handled uint64, guard func(string) error) error {
	path, err := unix.Open(rule.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) && rule.IfExists {
		return nil
	}
	if err != nil {
		return fmt.Errorf("unveil %s: %w", rule.Path, &os.PathError{Op: "open", Path: rule.Path, Err: err})
	}
	defer unix.Close(path)
	resolved, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", path))
	if err != nil {
		return fmt.Errorf("unveil %s: %w", rule.Path, err)
	}
	if err := guard(resolved); err != nil {
		if rule.IfExists {
			return nil
		}
		return fmt.Errorf("unveil %s: %w", rule.Path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(path, &st); err != nil {
		return fmt.Errorf("unveil %s: %w", rule.Path, err)
	}
	allowed := rule.rights() & handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		allowed &= fileRights
	}
	if allowed == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(path)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if e == unix.EBADFD && rule.IfExists {
		return nil // a pipe or socket file system: no rule can be made of it
	}
	if e != 0 {
		return fmt.Errorf("unveil %s: landlock add rule: %w", rule.Path, e)
	}
	return nil
}

// landlockRestrict confines this thread, the one that execs the task, to
// the ruleset. No new privileges first: a task must not regain, through a
// set-user-ID program, what the ruleset and its capabilities deny it.
func landlockRestrict(ruleset int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); e != 0 {
		return fmt.Errorf("landlock: restrict the task: %w", e)
	}
	return nil
}
