package isolate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	must.NoError(t, os.MkdirAll(dir, 0o755))
	for name, body := range files {
		must.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
}

func TestReadUsageV2(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"memory.current":      "3145728\n",
		"memory.peak":         "4194304\n",
		"memory.swap.current": "0\n",
		"memory.stat":         "anon 2097152\nfile 1048576\nkernel 4096\n",
		"cpu.stat":            "usage_usec 3500000\nuser_usec 2500000\nsystem_usec 1000000\nnr_periods 10\nnr_throttled 2\nthrottled_usec 7000\n",
	})
	u, err := readUsageV2(dir)
	must.NoError(t, err)
	must.Eq(t, &CgroupUsage{
		MemoryUsage: 3 << 20, MemoryMaxUsage: 4 << 20, MemoryRSS: 2 << 20, MemoryCache: 1 << 20,
		CPUUser: 2500 * time.Millisecond, CPUSystem: time.Second,
		ThrottledPeriods: 2, ThrottledTime: 7 * time.Millisecond,
	}, u)

	_, err = readUsageV2(t.TempDir())
	must.ErrorIs(t, err, os.ErrNotExist)
}

func TestReadUsageV1(t *testing.T) {
	mem, cpu := t.TempDir(), t.TempDir()
	writeFiles(t, mem, map[string]string{
		"memory.usage_in_bytes":     "3145728\n",
		"memory.max_usage_in_bytes": "4194304\n",
		"memory.stat":               "cache 1\nrss 2\ntotal_cache 1048576\ntotal_rss 2097152\ntotal_swap 0\n",
	})
	_, err := readUsageV1(mem, cpu, cpu)
	must.ErrorIs(t, err, errNoCPUAccounting)

	writeFiles(t, cpu, map[string]string{
		"cpuacct.stat": "user 250\nsystem 100\n",
		"cpu.stat":     "nr_periods 10\nnr_throttled 2\nthrottled_time 7000000\n",
	})
	u, err := readUsageV1(mem, cpu, cpu)
	must.NoError(t, err)
	must.Eq(t, &CgroupUsage{
		MemoryUsage: 3 << 20, MemoryMaxUsage: 4 << 20, MemoryRSS: 2 << 20, MemoryCache: 1 << 20,
		CPUUser: 2500 * time.Millisecond, CPUSystem: time.Second,
		ThrottledPeriods: 2, ThrottledTime: 7 * time.Millisecond,
	}, u)
}

func TestReadCgroupUsage_BadName(t *testing.T) {
	for _, name := range []string{"", "..", "a/b"} {
		_, err := ReadCgroupUsage(name)
		must.ErrorContains(t, err, "invalid cgroup name")
	}
}
