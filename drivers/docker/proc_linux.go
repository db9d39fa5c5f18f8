package docker

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// procHandle holds the container's first process by a pidfd: a signal
// goes straight to it, as the engine's kill would after a round trip
// through the engine and its runtime (tens of milliseconds on a busy
// machine), and its exit is seen the moment it happens. Only the exit
// code must wait for the engine.
type procHandle struct {
	f  *os.File
	fd int
}

// openProc opens the process pid if it is the container's: its cgroup
// names the container, and it is still alive once the pidfd holds it, so
// the pid was not reused in between. Without a pidfd (an older kernel,
// an agent in another PID namespace) the driver goes through the engine.
func openProc(pid int, containerID string) (*procHandle, error) {
	if pid <= 0 {
		return nil, errors.New("no process")
	}
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	cgroup, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil || !strings.Contains(string(cgroup), containerID) {
		unix.Close(fd)
		return nil, fmt.Errorf("process %d is not the container's", pid)
	}
	if err := unix.PidfdSendSignal(fd, 0, nil, 0); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	// A non-blocking fd is waited on by the runtime's poller, not by a
	// thread of its own.
	return &procHandle{f: os.NewFile(uintptr(fd), "pidfd"), fd: fd}, nil
}

// signal sends sig to the process; one that has exited is no error.
func (p *procHandle) signal(sig syscall.Signal) error {
	err := unix.PidfdSendSignal(p.fd, sig, nil, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

// wait blocks until the process exits, and returns when it did; an
// error once the handle is closed.
func (p *procHandle) wait() (time.Time, error) {
	rc, err := p.f.SyscallConn()
	if err != nil {
		return time.Time{}, err
	}
	err = rc.Read(func(fd uintptr) bool {
		// A pidfd is readable once its process has exited.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		return err == nil && n > 0
	})
	if err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil
}

func (p *procHandle) close() { p.f.Close() }
