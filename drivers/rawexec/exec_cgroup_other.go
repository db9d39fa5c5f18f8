//go:build !linux

package rawexec

import (
	"os"
	"syscall"
)

// startInCgroup does nothing: only Linux has cgroups.
func startInCgroup(*syscall.SysProcAttr, *os.File) {}
