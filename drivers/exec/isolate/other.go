//go:build !linux

package isolate

import (
	"errors"
	"os"
	"os/exec"
)

// InitArg is the argument that makes the agent's binary run InitMain.
const InitArg = "task-isolate-init"

var errNotLinux = errors.New("isolating a task needs Linux")

// Launch is one task's isolation, from its supervisor's side.
type Launch struct{}

// Prepare fails: only Linux isolates tasks.
func Prepare(*Spec) (*Launch, error) { return nil, errNotLinux }

// Start fails: only Linux isolates tasks.
func (*Launch) Start(string, []string, []string, *os.File, *os.File) (*exec.Cmd, error) {
	return nil, errNotLinux
}

// Finish has nothing to undo.
func (*Launch) Finish() (bool, error) { return false, nil }

// CgroupVersion is 0: no cgroups but Linux's.
func CgroupVersion() int { return 0 }

// IsInit reports whether args (os.Args[1:]) run the init.
func IsInit(args []string) bool { return len(args) == 1 && args[0] == InitArg }

// InitMain fails: only Linux isolates tasks.
func InitMain() int {
	os.Stderr.WriteString(errNotLinux.Error() + "\n")
	return 1
}

// Cgroup is a task's cgroup; there is none off Linux.
type Cgroup struct{}

// CreateCgroup fails: only Linux has cgroups.
func CreateCgroup(CgroupSpec) (*Cgroup, error) { return nil, errNotLinux }

// StartIn starts cmd.
func (*Cgroup) StartIn(cmd *exec.Cmd) error { return cmd.Start() }

// Kill has nothing to kill.
func (*Cgroup) Kill() error { return nil }

// Remove has nothing to remove.
func (*Cgroup) Remove() error { return nil }
