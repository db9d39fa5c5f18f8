package isolate

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Process is a running task's process, held by a pidfd: it names that
// process and no other, even once its PID is reused.
type Process struct {
	pid   int
	pidfd int
}

// OpenProcess holds the process pid. The caller checks, after it, that
// the task still runs: then the pidfd is the task's.
func OpenProcess(pid int) (*Process, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("invalid task PID %d", pid)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, fmt.Errorf("open the task's process %d: %w", pid, err)
	}
	return &Process{pid: pid, pidfd: fd}, nil
}

// Close releases the pidfd.
func (p *Process) Close() error { return unix.Close(p.pidfd) }

// CgroupDir opens the cgroup (v2) the process is in, for a command to be
// started into it (SysProcAttr.CgroupFD); nil without cgroup v2.
func (p *Process) CgroupDir() (*os.File, error) {
	if CgroupVersion() != 2 {
		return nil, nil
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/cgroup", p.pid))
	if err != nil {
		return nil, fmt.Errorf("read the task's cgroup: %w", err)
	}
	defer f.Close()
	var rel string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			rel = v
		}
	}
	// The process may have ended and its PID been reused while the
	// file was read: the pidfd tells.
	if err := unix.PidfdSendSignal(p.pidfd, 0, nil, 0); err != nil {
		return nil, fmt.Errorf("the task's process %d has exited", p.pid)
	}
	if rel == "" || !strings.HasPrefix(rel, "/") {
		return nil, fmt.Errorf("the task's process %d is in no cgroup v2", p.pid)
	}
	dir, err := os.OpenFile(filepath.Join(cgroupRoot, filepath.Clean(rel)), os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open the task's cgroup: %w", err)
	}
	return dir, nil
}

// StartIn starts cmd inside the task's isolation, as spec isolated it:
// in the namespaces of the task's process p (its mount namespace, whose
// root is the task's; its PID and IPC namespaces when private), with the
// task's capability bounding set and user. cmd.Path is looked up inside
// the task's root, as the task's command is; cmd.Dir is in it too.
//
// A thread of the agent enters the namespaces and starts cmd from there,
// so that cmd is born inside them; the thread is never used again (its
// goroutine exits locked to it, and the runtime ends it).
func StartIn(p *Process, spec *Spec, cmd *exec.Cmd) error {
	if spec == nil {
		return errors.New("no isolation spec")
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// No UnlockOSThread: the thread leaves with its goroutine.
		errc <- startInLocked(p, spec, cmd)
	}()
	return <-errc
}

func startInLocked(p *Process, spec *Spec, cmd *exec.Cmd) error {
	// The thread shares its root and working directory with the others:
	// it needs its own before it may join a mount namespace.
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return fmt.Errorf("unshare the thread's file system context: %w", err)
	}
	ruleset, err := unveiledRuleset(spec)
	if err != nil {
		return err
	}
	if ruleset >= 0 {
		defer unix.Close(ruleset)
	}
	flags := unix.CLONE_NEWNS
	if spec.PrivatePID {
		flags |= unix.CLONE_NEWPID
	}
	if spec.PrivateIPC {
		flags |= unix.CLONE_NEWIPC
	}
	if err := unix.Setns(p.pidfd, flags); err != nil {
		return fmt.Errorf("enter the task's namespaces: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	exe, err := lookPath(cmd.Path, cmd.Env)
	if err != nil {
		// lookPath words its errors for the task's command.
		return errors.New(strings.TrimPrefix(err.Error(), `config key "command": `))
	}
	cmd.Path = exe
	if err := limitCaps(spec.Caps); err != nil {
		return err
	}
	if ruleset >= 0 {
		// An exec2 task is held by Landlock, which entering its
		// namespaces does not carry over: hold this thread, and so the
		// command it starts, to the task's unveiled paths. The thread is
		// thrown away with its goroutine (StartIn), never reused.
		if err := landlockRestrict(ruleset); err != nil {
			return err
		}
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if u := spec.User; u != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: u.Groups}
	}
	return cmd.Start()
}

// unveiledRuleset is the Landlock ruleset of a HostRoot task's unveiled
// paths, as the task itself is held by it (hostRootExec); -1 for a task
// of another kind. It is made before the task's namespaces are entered:
// the paths are the host's in both, and resolving them needs this
// process's /proc, which the task's PID namespace does not show.
func unveiledRuleset(spec *Spec) (int, error) {
	if !spec.HostRoot {
		return -1, nil
	}
	return landlockRuleset(spec.Unveil, allocGuard(spec))
}
