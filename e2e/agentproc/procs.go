package agentproc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Proc is a process as /proc showed it. Its start time tells it apart
// from a later process that reuses its PID.
type Proc struct {
	Pid, PPid, Pgid int
	// Start is the process's start time in clock ticks since boot.
	Start uint64
}

// readProc reads pid's /proc/<pid>/stat; ok is false when the process is
// gone or unreadable.
func readProc(pid int) (Proc, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return Proc{}, false
	}
	// The command name, in parentheses, may hold spaces: the fields that
	// follow it are counted from its closing parenthesis.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return Proc{}, false
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state); ppid is field 4, pgrp 5, starttime 22.
	if len(f) < 20 {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Proc{}, false
	}
	return Proc{Pid: pid, PPid: ppid, Pgid: pgid, Start: start}, true
}

// allProcs lists every process /proc shows.
func allProcs() []Proc {
	entries, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// Descendants lists the processes below pid: its children, theirs, ...
func Descendants(pid int) []Proc {
	return below(allProcs(), []int{pid})
}

// below lists the processes of all that descend from roots.
func below(all []Proc, roots []int) []Proc {
	children := map[int][]Proc{}
	for _, p := range all {
		children[p.PPid] = append(children[p.PPid], p)
	}
	var out []Proc
	queue := roots
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range children[next] {
			out = append(out, c)
			queue = append(queue, c.Pid)
		}
	}
	return out
}

// Matching lists the processes whose command line contains s, and every
// process below them: for a raw_exec supervisor found by its state
// directory, its task too.
func Matching(s string) []Proc {
	all := allProcs()
	self := os.Getpid()
	var found []Proc
	var roots []int
	for _, p := range all {
		if p.Pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.Pid), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(s)) {
			continue
		}
		found = append(found, p)
		roots = append(roots, p.Pid)
	}
	return append(found, below(all, roots)...)
}

// KillGroups sends SIGKILL to each process that is still the one listed,
// and to its process group when it leads one: a raw_exec task leads its
// own group, in which its children run too. The caller's own group is
// never signalled.
func KillGroups(procs []Proc) {
	ownGroup := syscall.Getpgrp()
	for _, p := range procs {
		now, ok := readProc(p.Pid)
		if !ok || now.Start != p.Start {
			continue // gone, or its PID reused
		}
		if now.Pgid == now.Pid && now.Pgid != ownGroup {
			_ = syscall.Kill(-now.Pgid, syscall.SIGKILL)
		}
		_ = syscall.Kill(now.Pid, syscall.SIGKILL)
	}
}

// Pids are the process IDs of procs.
func Pids(procs []Proc) []int {
	out := make([]int, len(procs))
	for i, p := range procs {
		out[i] = p.Pid
	}
	return out
}
