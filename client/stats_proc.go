package client

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of CPU times in /proc: 100 on every
// architecture Linux runs Go on.
const clockTicks = 100

// procDir is where the proc file system is mounted.
const procDir = "/proc"

// groupProcesses returns the processes of process group pgid, pid first;
// just pid when pgid is unknown.
func groupProcesses(pid, pgid int) []int {
	procs := []int{pid}
	if pgid <= 0 {
		return procs
	}
	var r procReader
	for _, p := range r.groups(map[int]bool{pgid: true})[pgid] {
		if p.pid != pid {
			procs = append(procs, p.pid)
		}
	}
	return procs
}

// procStat is what the client reads from /proc/<pid>/stat.
type procStat struct {
	pgid      int
	utime     uint64 // clock ticks
	stime     uint64
	startTime uint64 // clock ticks after boot
}

// readProcessUsage reads one process's resident memory and its CPU use
// averaged over its lifetime; mhz converts that use into TotalTicks.
func readProcessUsage(pid int, mhz float64) (*ResourceUsage, error) {
	var r procReader
	st, err := r.stat(pid)
	if err != nil {
		return nil, err
	}
	rss, err := r.rss(pid, uint64(os.Getpagesize()))
	if err != nil {
		return nil, err
	}

	uptime, err := readUptime()
	if err != nil {
		return nil, err
	}
	u := &ResourceUsage{
		MemoryStats: &MemoryStats{RSS: rss, Usage: rss, Measured: measuredMemory},
		CpuStats:    &CpuStats{Measured: measuredCPU},
	}
	if elapsed := uptime - float64(st.startTime)/clockTicks; elapsed > 0 {
		u.CpuStats.UserMode = 100 * float64(st.utime) / clockTicks / elapsed
		u.CpuStats.SystemMode = 100 * float64(st.stime) / clockTicks / elapsed
		u.CpuStats.Percent = u.CpuStats.UserMode + u.CpuStats.SystemMode
		u.CpuStats.TotalTicks = u.CpuStats.Percent / 100 * mhz
	}
	return u, nil
}

// readUptime returns the seconds since boot.
func readUptime() (float64, error) {
	data, err := os.ReadFile(filepath.Join(procDir, "uptime"))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, fmt.Errorf("malformed %s/uptime", procDir)
	}
	return strconv.ParseFloat(f[0], 64)
}
