package isolate

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// setgroups sets this thread's supplementary groups; groups is not empty.
func setgroups(groups []uint32) unix.Errno {
	_, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, uintptr(len(groups)), uintptr(unsafe.Pointer(&groups[0])), 0)
	return e
}
