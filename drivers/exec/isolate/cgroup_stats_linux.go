package isolate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CgroupUsage is what a task's cgroup has used: memory in bytes, CPU
// time since the cgroup was made.
type CgroupUsage struct {
	MemoryUsage, MemoryMaxUsage  uint64
	MemoryRSS, MemoryCache, Swap uint64
	CPUUser, CPUSystem           time.Duration
	ThrottledPeriods             uint64
	ThrottledTime                time.Duration
}

// errNoCPUAccounting: on cgroup v1 the task's cgroup holds CPU times
// only where the cpuacct controller is mounted.
var errNoCPUAccounting = errors.New("the task's cgroup has no CPU accounting (cgroup v1 without the cpuacct controller)")

// ReadCgroupUsage reads the use of the task cgroup name (CgroupName)
// that a supervisor of this agent made.
func ReadCgroupUsage(name string) (*CgroupUsage, error) {
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return nil, fmt.Errorf("invalid cgroup name %q", name)
	}
	switch CgroupVersion() {
	case 2:
		return readUsageV2(filepath.Join(cgroupRoot, cgroupParent, name))
	case 1:
		own, err := ownCgroupsV1()
		if err != nil {
			return nil, err
		}
		dir := func(c string) string { return filepath.Join(cgroupRoot, c, own[c], cgroupParent, name) }
		acct := dir("cpuacct")
		if _, err := os.Stat(filepath.Join(acct, "cpuacct.stat")); err != nil {
			acct = dir("cpu") // co-mounted
		}
		return readUsageV1(dir("memory"), dir("cpu"), acct)
	}
	return nil, errors.New("no cgroup file system is mounted")
}

func readUsageV2(dir string) (*CgroupUsage, error) {
	u := &CgroupUsage{}
	var err error
	if u.MemoryUsage, err = readUint(filepath.Join(dir, "memory.current")); err != nil {
		return nil, err
	}
	// memory.peak came with Linux 5.19; swap accounting may be off.
	u.MemoryMaxUsage, _ = readUint(filepath.Join(dir, "memory.peak"))
	u.Swap, _ = readUint(filepath.Join(dir, "memory.swap.current"))
	mem, err := readKeyed(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return nil, err
	}
	u.MemoryRSS, u.MemoryCache = mem["anon"], mem["file"]
	cpu, err := readKeyed(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return nil, err
	}
	u.CPUUser = time.Duration(cpu["user_usec"]) * time.Microsecond
	u.CPUSystem = time.Duration(cpu["system_usec"]) * time.Microsecond
	u.ThrottledPeriods = cpu["nr_throttled"]
	u.ThrottledTime = time.Duration(cpu["throttled_usec"]) * time.Microsecond
	return u, nil
}

// userHZ is the unit of cpuacct.stat: USER_HZ, 100 on every Linux
// architecture Drover builds for.
const userHZ = 100

func readUsageV1(memDir, cpuDir, acctDir string) (*CgroupUsage, error) {
	u := &CgroupUsage{}
	var err error
	if u.MemoryUsage, err = readUint(filepath.Join(memDir, "memory.usage_in_bytes")); err != nil {
		return nil, err
	}
	u.MemoryMaxUsage, _ = readUint(filepath.Join(memDir, "memory.max_usage_in_bytes"))
	mem, err := readKeyed(filepath.Join(memDir, "memory.stat"))
	if err != nil {
		return nil, err
	}
	u.MemoryRSS, u.MemoryCache, u.Swap = mem["total_rss"], mem["total_cache"], mem["total_swap"]
	acct, err := readKeyed(filepath.Join(acctDir, "cpuacct.stat"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoCPUAccounting
	}
	if err != nil {
		return nil, err
	}
	u.CPUUser = time.Duration(acct["user"]) * time.Second / userHZ
	u.CPUSystem = time.Duration(acct["system"]) * time.Second / userHZ
	if cpu, err := readKeyed(filepath.Join(cpuDir, "cpu.stat")); err == nil {
		u.ThrottledPeriods = cpu["nr_throttled"]
		u.ThrottledTime = time.Duration(cpu["throttled_time"])
	}
	return u, nil
}

func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// readKeyed reads a flat keyed cgroup file ("key value" lines); values
// that are not numbers are left out.
func readKeyed(path string) (map[string]uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
			out[k] = n
		}
	}
	return out, sc.Err()
}
