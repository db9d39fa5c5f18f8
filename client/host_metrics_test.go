package client

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	metrics "github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

const meminfoFixture = `MemTotal:       16283260 kB
MemFree:         1021348 kB
MemAvailable:    9470116 kB
Buffers:          532480 kB
Cached:          7481444 kB
SwapCached:            0 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
`

func TestParseMeminfo(t *testing.T) {
	m, err := parseMeminfo(strings.NewReader(meminfoFixture))
	must.NoError(t, err)
	must.Eq(t, memInfo{total: 16283260 << 10, free: 1021348 << 10, available: 9470116 << 10}, m)
	must.Eq(t, uint64(16283260-9470116)<<10, m.used())
}

func TestParseMeminfo_WithoutMemAvailable(t *testing.T) {
	// Kernels before 3.14: free memory, buffers and page cache.
	m, err := parseMeminfo(strings.NewReader("MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 200 kB\n"))
	must.NoError(t, err)
	must.Eq(t, uint64(350<<10), m.available)
	must.Eq(t, uint64(650<<10), m.used())
}

func TestParseMeminfo_Errors(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"no total":      {"MemFree: 100 kB\n", "no MemTotal or MemFree"},
		"bad number":    {"MemTotal: lots kB\nMemFree: 1 kB\n", `MemTotal: value "lots"`},
		"missing value": {"MemTotal:\nMemFree: 1 kB\n", "MemTotal: no value"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseMeminfo(strings.NewReader(tc.in))
			must.ErrorContains(t, err, tc.want)
		})
	}
}

const statFixture = `cpu  300 20 100 5000 40 5 5 0 0 0
cpu0 100 10 50 2500 20 2 3 0 0 0
cpu1 200 10 50 2500 20 3 2 0 0 0
intr 12345 0 0
ctxt 678
btime 1700000000
cpufreq 1
`

func TestParseCPUTimes(t *testing.T) {
	cpus, err := parseCPUTimes(strings.NewReader(statFixture))
	must.NoError(t, err)
	must.Eq(t, []namedCPUTimes{
		{name: "cpu0", cpuTimes: cpuTimes{user: 110, system: 55, idle: 2520, all: 2685}},
		{name: "cpu1", cpuTimes: cpuTimes{user: 210, system: 55, idle: 2520, all: 2785}},
	}, cpus)
}

func TestParseCPUTimes_OldKernel(t *testing.T) {
	// Linux 2.4 has four columns.
	cpus, err := parseCPUTimes(strings.NewReader("cpu0 10 0 5 85\n"))
	must.NoError(t, err)
	must.Eq(t, []namedCPUTimes{{name: "cpu0", cpuTimes: cpuTimes{user: 10, system: 5, idle: 85, all: 100}}}, cpus)
}

func TestParseCPUTimes_Errors(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"short line":  {"cpu0 1 2 3\n", "cpu0: 3 columns, want at least 4"},
		"bad number":  {"cpu0 1 2 x 4\n", "cpu0: column 3"},
		"no cpu line": {"cpu 1 2 3 4\nintr 5\n", "no per-CPU lines"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseCPUTimes(strings.NewReader(tc.in))
			must.ErrorContains(t, err, tc.want)
		})
	}
}

func TestCPUPercents(t *testing.T) {
	prev := cpuTimes{user: 100, system: 50, idle: 800, all: 1000}
	cur := cpuTimes{user: 160, system: 70, idle: 900, all: 1200}
	p, ok := cpuPercents(prev, cur)
	must.True(t, ok)
	must.Eq(t, cpuPercent{total: 50, user: 30, system: 10, idle: 50}, p)

	_, ok = cpuPercents(prev, prev)
	must.False(t, ok, must.Sprint("no tick passed"))
	_, ok = cpuPercents(cur, prev)
	must.False(t, ok, must.Sprint("counters went back"))
}

const mountinfoFixture = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
23 22 8:2 / /boot rw,relatime shared:2 - vfat /dev/sda2 rw
24 22 0:5 / /var rw shared:3 - xfs /dev/mapper/vg-var rw
25 24 0:6 / /var/lib/my\040data rw shared:4 - ext4 /dev/sdb1 rw
26 24 0:7 / /var/lib rw shared:5 - tmpfs tmpfs rw
27 26 0:8 / /var/lib rw shared:6 - ext4 /dev/sdc1 rw
`

func TestMountSource(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/", "/dev/sda1"},
		{"/home/drover/alloc", "/dev/sda1"},
		{"/boot", "/dev/sda2"},
		// A prefix of a mount point's name is not within it.
		{"/bootstrap/alloc", "/dev/sda1"},
		{"/var/log", "/dev/mapper/vg-var"},
		// Mounts stacked on one point: the last one is on top.
		{"/var/lib/drover/alloc", "/dev/sdc1"},
		// \040 is a space.
		{"/var/lib/my data/alloc", "/dev/sdb1"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got, ok := mountSource(strings.NewReader(mountinfoFixture), tc.path)
			must.True(t, ok)
			must.Eq(t, tc.want, got)
		})
	}
	_, ok := mountSource(strings.NewReader("garbage\n\n"), "/x")
	must.False(t, ok)
}

func TestDiskUsage_Percents(t *testing.T) {
	// 10 blocks of 100 reserved for root: neither used nor available.
	u := diskUsage{size: 1000, used: 450, available: 450, inodes: 200, inodesFree: 150}
	must.Eq(t, 50.0, u.usedPercent())
	pct, ok := u.inodesPercent()
	must.True(t, ok)
	must.Eq(t, 25.0, pct)

	_, ok = diskUsage{}.inodesPercent()
	must.False(t, ok, must.Sprint("no fixed number of inodes (btrfs)"))
	must.Eq(t, 0.0, diskUsage{}.usedPercent())
}

// fixtureProc writes a proc directory with the given meminfo, stat and
// mountinfo.
func fixtureProc(t *testing.T, dir, meminfo, stat, mountinfo string) {
	t.Helper()
	must.NoError(t, os.MkdirAll(filepath.Join(dir, "self"), 0o755))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "meminfo"), []byte(meminfo), 0o644))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "self", "mountinfo"), []byte(mountinfo), 0o644))
}

func testNode() *structs.Node {
	return &structs.Node{
		ID: "node-1", Datacenter: "dc1", NodeClass: "", NodePool: "default",
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: 4000, TotalCpuCores: 4},
			Memory: structs.NodeMemoryResources{MemoryMB: 8192},
			Disk:   structs.NodeDiskResources{DiskMB: 100000},
		},
		ReservedResources: &structs.NodeReservedResources{
			Memory: structs.NodeReservedMemoryResources{MemoryMB: 192},
		},
	}
}

func TestHostMetrics_CollectsFromProc(t *testing.T) {
	proc := t.TempDir()
	fixtureProc(t, proc, meminfoFixture, statFixture, "1 0 8:1 / / rw - ext4 /dev/fixture rw\n")
	node := testNode()
	labels := nodeMetricLabels(node)
	h := newHostMetrics(hclog.NewNullLogger(), node, t.TempDir(), labels)
	h.proc = proc

	running := &structs.Allocation{
		ID: "a1", DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		Resources: &structs.Resources{CPU: 500, Cores: 1, MemoryMB: 256, DiskMB: 300},
	}
	stopping := &structs.Allocation{
		ID: "a2", DesiredStatus: structs.AllocDesiredStatusStop, ClientStatus: structs.AllocClientStatusRunning,
		Resources: &structs.Resources{CPU: 100, MemoryMB: 64},
	}
	rec := newGaugeRecorder()
	h.collect(rec, time.Now(), []*structs.Allocation{running, stopping})

	gauge := func(key []string, labels []metrics.Label) float32 {
		t.Helper()
		v, ok := rec.value(key, labels)
		must.True(t, ok, must.Sprintf("%s not set", seriesKey(key, labels)))
		return v
	}
	must.Eq(t, float32(16283260<<10), gauge(metricHostMemoryTotal, labels))
	must.Eq(t, float32(9470116<<10), gauge(metricHostMemoryAvailable, labels))
	must.Eq(t, float32((16283260-9470116)<<10), gauge(metricHostMemoryUsed, labels))
	must.Eq(t, float32(1021348<<10), gauge(metricHostMemoryFree, labels))

	// A stopping allocation no longer holds its resources; a core counts
	// at the node's MHz per core.
	must.Eq(t, float32(1500), gauge(metricAllocatedCPU, labels))
	must.Eq(t, float32(256), gauge(metricAllocatedMemory, labels))
	must.Eq(t, float32(300), gauge(metricAllocatedDisk, labels))
	must.Eq(t, float32(2500), gauge(metricUnallocatedCPU, labels))
	must.Eq(t, float32(8000-256), gauge(metricUnallocatedMemory, labels))
	must.Eq(t, float32(100000-300), gauge(metricUnallocatedDisk, labels))

	// CPU use is measured over an interval: none after one reading.
	must.SliceEmpty(t, rec.withPrefix("client.host.cpu."))

	// cpu0: 60 user (nice included), 20 system, 120 idle (iowait
	// included) ticks more; cpu1 idle only.
	fixtureProc(t, proc, meminfoFixture, `cpu  0 0 0 0
cpu0 150 20 70 2600 40 2 3 0 0 0
cpu1 200 10 50 2600 20 3 2 0 0 0
`, "")
	h.collect(rec, time.Now(), nil)
	cpu0 := withLabels(labels, metrics.Label{Name: "cpu", Value: "cpu0"})
	cpu1 := withLabels(labels, metrics.Label{Name: "cpu", Value: "cpu1"})
	must.Eq(t, float32(40), gauge(metricHostCPUTotal, cpu0))
	must.Eq(t, float32(30), gauge(metricHostCPUUser, cpu0))
	must.Eq(t, float32(10), gauge(metricHostCPUSystem, cpu0))
	must.Eq(t, float32(60), gauge(metricHostCPUIdle, cpu0))
	must.Eq(t, float32(0), gauge(metricHostCPUTotal, cpu1))
	must.Eq(t, float32(100), gauge(metricHostCPUIdle, cpu1))
	must.Eq(t, float32(0), gauge(metricAllocatedMemory, labels))

	if runtime.GOOS != "linux" {
		must.SliceEmpty(t, rec.withPrefix("client.host.disk."))
		return
	}
	// The disk is named as the mount table names it.
	disk := withLabels(labels, metrics.Label{Name: "disk", Value: "/dev/fixture"})
	size := gauge(metricHostDiskSize, disk)
	must.Positive(t, size)
	used, avail := gauge(metricHostDiskUsed, disk), gauge(metricHostDiskAvailable, disk)
	// Blocks reserved for root are neither used nor available.
	must.True(t, used+avail <= size*1.0001, must.Sprintf("used %v + available %v > size %v", used, avail, size))
	pct := gauge(metricHostDiskUsedPercent, disk)
	must.True(t, pct >= 0 && pct <= 100, must.Sprintf("used_percent %v", pct))
	must.Positive(t, gauge(metricUptime, labels))
}

func TestHostMetrics_SkipsWhatTheMachineLacks(t *testing.T) {
	node := testNode()
	labels := nodeMetricLabels(node)
	h := newHostMetrics(hclog.NewNullLogger(), node, filepath.Join(t.TempDir(), "gone"), labels)
	h.proc = t.TempDir() // no meminfo, no stat
	rec := newGaugeRecorder()
	for range 3 {
		h.collect(rec, time.Now(), nil)
	}
	must.SliceEmpty(t, rec.withPrefix("client.host."))
	// Each missing source is noted once; what the client knows itself is
	// still reported.
	must.MapContainsKeys(t, h.warned, []string{"memory", "cpu", "disk"})
	must.Eq(t, 3, rec.count(metricUnallocatedMemory, labels))
}
