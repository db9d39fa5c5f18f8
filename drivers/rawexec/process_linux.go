package rawexec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// watchSupervisor returns a function that blocks until the supervisor with
// the given pid exits. The supervisor is not our child (it was started by
// an earlier agent), so it cannot be waited for; a pidfd reports its exit
// without polling and pins its identity against pid reuse. It returns
// errProcessGone when no supervisor for stateDir runs under pid.
func watchSupervisor(pid int, stateDir string) (func(), error) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.PidfdOpen(pid, 0) // kernels before 5.10
	}
	switch {
	case errors.Is(err, unix.ESRCH):
		return nil, errProcessGone
	case err != nil:
		// No pidfds here (old kernel, seccomp): fall back to polling.
		return pollSupervisor(pid, stateDir)
	}
	// Checked after opening the pidfd, so the pidfd is known to refer to
	// the supervisor and not to a process that reused its pid.
	if !isSupervisor(pid, stateDir) {
		unix.Close(fd)
		return nil, errProcessGone
	}
	f := os.NewFile(uintptr(fd), "pidfd:"+strconv.Itoa(pid))
	return func() {
		defer f.Close()
		waitPidfd(f)
	}, nil
}

// waitPidfd blocks until the pidfd's process exits. The runtime's poller
// waits when it can take the pidfd; otherwise poll(2) blocks a thread.
func waitPidfd(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		err = rc.Read(func(fd uintptr) bool { return pidfdReady(int(fd), 0) })
		if err == nil {
			return
		}
	}
	fd := int(f.Fd())
	for {
		if pidfdReady(fd, -1) {
			return
		}
	}
}

// pidfdReady polls a pidfd for the exit of its process, waiting up to
// timeoutMs (-1: no limit).
func pidfdReady(fd, timeoutMs int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, timeoutMs)
	if err != nil {
		// EINTR: not ready yet. Anything else means the pidfd is unusable;
		// report exit so that the caller consults the state file.
		return !errors.Is(err, unix.EINTR)
	}
	return n > 0
}

// isSupervisor reports whether pid runs a supervisor for stateDir: its
// last command-line argument is the state directory.
func isSupervisor(pid int, stateDir string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0})
	return len(args) > 1 && string(args[len(args)-1]) == stateDir
}

// awaitExit blocks until the process exits without holding an OS thread
// the way wait(2) does: the runtime's poller watches a pidfd. The caller
// still reaps the process. Without pidfds it returns at once.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd:"+strconv.Itoa(pid))
	defer f.Close()
	waitPidfd(f)
}

// releaseReadOnlyMappings drops this process's page-table entries for its
// read-only file mappings (its own binary's text and read-only data, and
// any shared libraries). Start-up touches much of a large binary (every
// package's init) that a supervisor never runs again; those pages count
// towards its RSS and PSS until released. The pages stay in the page cache
// and fault back in if used. Only mappings without private copies of pages
// are released: a read-only mapping may still hold pages written before it
// was made read-only (relocations in a dynamically linked binary), and
// dropping those would lose the writes.
func releaseReadOnlyMappings() {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	// Collected first and released after reading: the kernel builds smaps
	// as it is read. Streaming keeps the garbage small, as no collection
	// follows to free it.
	ranges, err := releasableMappings(f)
	f.Close()
	if err != nil {
		return
	}
	for _, m := range ranges {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED)
	}
}

type addressRange struct{ start, end uintptr }

// releasableMappings reads /proc/<pid>/smaps and returns the private,
// never-writable file mappings that hold no anonymous pages. It allocates
// nothing per line: it runs after the supervisor handed its free memory
// back, and garbage would land on fresh pages that stay resident until
// the next collection.
func releasableMappings(smaps io.Reader) ([]addressRange, error) {
	var (
		out       []addressRange
		current   addressRange
		candidate bool
	)
	scanner := bufio.NewScanner(smaps)
	for scanner.Scan() {
		line := scanner.Bytes()
		if start, end, isHeader, ok := parseMapsHeader(line); isHeader {
			current, candidate = addressRange{start, end}, ok
			continue
		}
		if !candidate {
			continue
		}
		if value, found := bytes.CutPrefix(line, []byte("Anonymous:")); found {
			if string(bytes.TrimSpace(value)) == "0 kB" {
				out = append(out, current)
			}
			candidate = false
		}
	}
	return out, scanner.Err()
}

// parseMapsHeader parses a mapping's first line in /proc/<pid>/smaps (the
// /proc/<pid>/maps format: range, permissions, offset, device, inode and
// an optional path). isHeader reports whether line is one; ok whether it
// is a private, never-writable mapping of a file.
func parseMapsHeader(line []byte) (start, end uintptr, isHeader, ok bool) {
	addrs, rest := nextField(line)
	perms, rest := nextField(rest)
	_, rest = nextField(rest) // offset
	_, rest = nextField(rest) // device
	inode, rest := nextField(rest)
	path, _ := nextField(rest)
	if len(inode) == 0 || bytes.HasSuffix(addrs, []byte(":")) {
		return 0, 0, false, false
	}
	from, to, found := bytes.Cut(addrs, []byte("-"))
	if !found {
		return 0, 0, false, false
	}
	s, ok1 := parseHex(from)
	e, ok2 := parseHex(to)
	if !ok1 || !ok2 || e <= s {
		return 0, 0, false, false
	}
	isFile := bytes.HasPrefix(path, []byte("/"))
	readOnly := string(perms) == "r-xp" || string(perms) == "r--p"
	return uintptr(s), uintptr(e), true, isFile && readOnly
}

// nextField returns the first space-separated field of b and what follows
// it.
func nextField(b []byte) (field, rest []byte) {
	b = bytes.TrimLeft(b, " \t")
	if i := bytes.IndexAny(b, " \t"); i >= 0 {
		return b[:i], b[i:]
	}
	return b, nil
}

// parseHex parses a non-empty hexadecimal number of at most 64 bits.
func parseHex(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(c)
	}
	return n, true
}

// supervisorNice is how much a supervisor lowers its priority once its
// task runs. A supervisor only moves bytes and records the task's end.
// When many tasks die at once (a max_run_duration deadline shared by many
// allocations), a score of supervisors waking at the agent's priority, each
// in a scheduling group of its own, would starve the agent of the CPU it
// needs to kill the rest on time.
const supervisorNice = 10

// lowerPriority makes this process nicer by supervisorNice: every thread
// (Linux keeps a nice value per thread, and threads started later inherit
// it from the one that starts them) and the session's autogroup, which is
// what the scheduler weighs against other sessions when autogrouping is
// on. The task, started before and in a session of its own, keeps its
// priority. Failures are ignored: the priority is an optimisation.
func lowerPriority() {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range entries {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// getpriority(2) returns 20 - nice for the raw system call.
		raw, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
		if err != nil {
			continue
		}
		_ = unix.Setpriority(unix.PRIO_PROCESS, tid, nicer(20-raw))
	}
	lowerAutogroupPriority()
}

// nicer is nice lowered by supervisorNice, within the range Linux allows.
func nicer(nice int) int { return min(nice+supervisorNice, 19) }

// lowerAutogroupPriority lowers the priority of this session's autogroup,
// where the kernel has autogroups.
func lowerAutogroupPriority() {
	b, err := os.ReadFile("/proc/self/autogroup")
	if err != nil {
		return
	}
	// "/autogroup-123 nice 0"
	fields := strings.Fields(string(b))
	if len(fields) != 3 {
		return
	}
	nice, err := strconv.Atoi(fields[2])
	if err != nil {
		return
	}
	_ = os.WriteFile("/proc/self/autogroup", []byte(strconv.Itoa(nicer(nice))), 0)
}
