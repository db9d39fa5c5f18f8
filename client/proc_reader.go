package client

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// procReader reads the small per-process files of /proc into a buffer it
// reuses. The metrics publisher reads the stat of every process on the
// machine each collection interval; os.ReadFile would allocate a buffer
// and a file for each, garbage that makes the agent's heap, and so its
// memory, grow with the number of processes.
type procReader struct {
	path []byte
	buf  [1024]byte
}

// read returns the content of /proc/<pid>/<name>, valid until the next
// read.
func (r *procReader) read(pid int, name string) ([]byte, error) {
	r.path = append(r.path[:0], procDir...)
	r.path = append(r.path, '/')
	r.path = strconv.AppendInt(r.path, int64(pid), 10)
	r.path = append(r.path, '/')
	r.path = append(r.path, name...)
	fd, err := syscall.Open(string(r.path), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", r.path, err)
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(r.buf) {
		m, err := syscall.Read(fd, r.buf[n:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", r.path, err)
		}
		if m == 0 {
			break
		}
		n += m
	}
	return r.buf[:n], nil
}

// stat reads and parses /proc/<pid>/stat.
func (r *procReader) stat(pid int) (procStat, error) {
	data, err := r.read(pid, "stat")
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(pid, data)
}

// groups reads the stat of every process and returns those in the wanted
// process groups, by group: one pass over /proc whatever the number of
// groups.
func (r *procReader) groups(want map[int]bool) map[int][]pidStat {
	d, err := os.Open(procDir)
	if err != nil {
		return nil
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil
	}
	groups := map[int][]pidStat{}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		st, err := r.stat(pid)
		if err == nil && want[st.pgid] {
			groups[st.pgid] = append(groups[st.pgid], pidStat{pid: pid, st: st})
		}
	}
	return groups
}

// rss reads the resident memory of pid, in bytes, from /proc/<pid>/statm.
func (r *procReader) rss(pid int, pageSize uint64) (uint64, error) {
	data, err := r.read(pid, "statm")
	if err != nil {
		return 0, err
	}
	// size resident shared ...
	_, rest, ok := bytes.Cut(data, []byte{' '})
	resident, _, _ := bytes.Cut(rest, []byte{' '})
	pages, err := parseUint(resident)
	if !ok || err != nil {
		return 0, fmt.Errorf("pid %d: malformed statm", pid)
	}
	return pages * pageSize, nil
}

// parseProcStat parses the content of /proc/<pid>/stat. The command name,
// in parentheses, may hold spaces and parentheses: fields are counted from
// after its last closing parenthesis, where field 3 begins.
func parseProcStat(pid int, data []byte) (procStat, error) {
	var st procStat
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return st, fmt.Errorf("pid %d: malformed stat", pid)
	}
	const (
		pgidField  = 5
		utimeField = 14
		stimeField = 15
		startField = 22
	)
	field, rest := 3, data[end+1:]
	for field <= startField {
		rest = bytes.TrimLeft(rest, " ")
		if len(rest) == 0 {
			return st, fmt.Errorf("pid %d: short stat", pid)
		}
		value := rest
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			value, rest = rest[:i], rest[i:]
		} else {
			rest = nil
		}
		switch field {
		case pgidField:
			pgid, _ := parseUint(value)
			st.pgid = int(pgid)
		case utimeField:
			st.utime, _ = parseUint(value)
		case stimeField:
			st.stime, _ = parseUint(value)
		case startField:
			st.startTime, _ = parseUint(value)
		}
		field++
	}
	return st, nil
}

// parseUint parses a decimal number without allocating.
func parseUint(b []byte) (uint64, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0, errors.New("empty number")
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a number: %q", b)
		}
		n = n*10 + uint64(c-'0')
	}
	return n, nil
}
