package rawexec

import (
	"os"
	"syscall"
)

// startInCgroup makes the process start in the cgroup dir is open on.
func startInCgroup(attr *syscall.SysProcAttr, dir *os.File) {
	attr.UseCgroupFD, attr.CgroupFD = true, int(dir.Fd())
}
