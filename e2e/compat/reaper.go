package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The suite's harness starts an agent per test and stops it in the test's
// deferred Stop; a test that fails before its defer is registered (a
// failed bootstrap in makeACLClient, a timed-out wait for the leader), or
// a test binary that panics or times out, leaves agents running, and an
// agent killed mid-way leaves its tasks. As a child subreaper this process
// inherits every such orphan, and stops them once go test has exited.

// becomeSubreaper makes the orphans of this process's descendants its
// children instead of init's.
func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become a child subreaper: %w", err)
	}
	return nil
}

// leftover is a process the suite left behind.
type leftover struct {
	Pid     int
	Command string
}

// stopLeftovers stops every child this process still has, with an
// interrupt first (an agent then removes what it made) and a kill for
// those still there after grace, and reaps them, until none is left;
// processes that a stopped one leaves become children in turn. It returns
// what it stopped.
func stopLeftovers(grace time.Duration) []leftover {
	var stopped []leftover
	for round := 0; round < 10; round++ {
		kids := children(os.Getpid())
		if len(kids) == 0 {
			break
		}
		for _, k := range kids {
			stopped = append(stopped, k)
			_ = syscall.Kill(k.Pid, syscall.SIGINT)
		}
		deadline := time.Now().Add(grace)
		for len(children(os.Getpid())) > 0 && time.Now().Before(deadline) {
			reap()
			time.Sleep(50 * time.Millisecond)
		}
		for _, k := range children(os.Getpid()) {
			_ = syscall.Kill(k.Pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
		reap()
	}
	return stopped
}

// reap collects the exit status of every child that has exited.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// children lists the live (not yet exited) children of pid, from /proc.
func children(pid int) []leftover {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []leftover
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, state, ok := statOf(p)
		if !ok || ppid != pid || state == "Z" {
			continue
		}
		out = append(out, leftover{Pid: p, Command: commandOf(p)})
	}
	return out
}

// statOf reads a process's parent and state from /proc/<pid>/stat.
func statOf(pid int) (ppid int, state string, ok bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, "", false
	}
	// The command name, in parentheses, may hold spaces: the fields are
	// counted from its closing parenthesis.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}

func commandOf(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\x00", " "))
}
