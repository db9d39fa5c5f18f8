//go:build !linux

package isolate

import (
	"os"
	"os/exec"
)

// Process is a running task's process.
type Process struct{}

// OpenProcess fails: only Linux isolates tasks.
func OpenProcess(int) (*Process, error) { return nil, errNotLinux }

// Close has nothing to release.
func (*Process) Close() error { return nil }

// CgroupDir is nil: no cgroups but Linux's.
func (*Process) CgroupDir() (*os.File, error) { return nil, nil }

// StartIn fails: only Linux isolates tasks.
func StartIn(*Process, *Spec, *exec.Cmd) error { return errNotLinux }
