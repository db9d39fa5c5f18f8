package client

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/structs"
)

// The node metric names, under the agent's service prefix, as Nomad
// emits them with publish_node_metrics.
var (
	metricHostMemoryTotal     = []string{"client", "host", "memory", "total"}
	metricHostMemoryAvailable = []string{"client", "host", "memory", "available"}
	metricHostMemoryUsed      = []string{"client", "host", "memory", "used"}
	metricHostMemoryFree      = []string{"client", "host", "memory", "free"}

	metricHostCPUTotal  = []string{"client", "host", "cpu", "total"}
	metricHostCPUUser   = []string{"client", "host", "cpu", "user"}
	metricHostCPUSystem = []string{"client", "host", "cpu", "system"}
	metricHostCPUIdle   = []string{"client", "host", "cpu", "idle"}

	metricHostDiskSize          = []string{"client", "host", "disk", "size"}
	metricHostDiskUsed          = []string{"client", "host", "disk", "used"}
	metricHostDiskAvailable     = []string{"client", "host", "disk", "available"}
	metricHostDiskUsedPercent   = []string{"client", "host", "disk", "used_percent"}
	metricHostDiskInodesPercent = []string{"client", "host", "disk", "inodes_percent"}

	metricUptime = []string{"client", "uptime"}

	metricAllocatedCPU      = []string{"client", "allocated", "cpu"}
	metricAllocatedMemory   = []string{"client", "allocated", "memory"}
	metricAllocatedDisk     = []string{"client", "allocated", "disk"}
	metricUnallocatedCPU    = []string{"client", "unallocated", "cpu"}
	metricUnallocatedMemory = []string{"client", "unallocated", "memory"}
	metricUnallocatedDisk   = []string{"client", "unallocated", "disk"}
)

// hostMetrics collects the node's gauges: memory, per-CPU use, the
// filesystem of the alloc dir, uptime, and what the allocations hold of
// the node's capacity. A source the machine does not have (no /proc off
// Linux) is skipped, with one warning.
type hostMetrics struct {
	logger   hclog.Logger
	proc     string // where the proc file system is mounted
	allocDir string
	labels   []metrics.Label

	// capacity is what the node offers allocations: its resources less
	// what it reserves, as the scheduler counts them.
	capacity      structs.Resources
	sharesPerCore int64

	// cpuPrev holds each CPU's times at the previous collection: CPU use
	// is the difference over one interval.
	cpuPrev   map[string]cpuTimes
	cpuLabels map[string][]metrics.Label
	// diskLabels are settled at the first collection: the alloc dir does
	// not move to another filesystem while the agent runs.
	diskLabels []metrics.Label
	// warned holds the sources whose failure was logged.
	warned map[string]bool
}

func newHostMetrics(logger hclog.Logger, node *structs.Node, allocDir string, labels []metrics.Label) *hostMetrics {
	h := &hostMetrics{
		logger:        logger,
		proc:          procDir,
		allocDir:      allocDir,
		labels:        labels,
		sharesPerCore: sharesPerCore(node),
		cpuPrev:       map[string]cpuTimes{},
		cpuLabels:     map[string][]metrics.Label{},
		warned:        map[string]bool{},
	}
	if nr := node.NodeResources; nr != nil {
		h.capacity = structs.Resources{
			CPU:      int(nr.Cpu.CpuShares),
			MemoryMB: int(nr.Memory.MemoryMB),
			DiskMB:   int(nr.Disk.DiskMB),
		}
	}
	if rr := node.ReservedResources; rr != nil {
		h.capacity.CPU -= int(rr.Cpu.CpuShares)
		h.capacity.MemoryMB -= int(rr.Memory.MemoryMB)
		h.capacity.DiskMB -= int(rr.Disk.DiskMB)
	}
	return h
}

func (h *hostMetrics) collect(g gaugeSink, _ time.Time, allocs []*structs.Allocation) {
	h.collectMemory(g)
	h.collectCPU(g)
	h.collectDisk(g)
	h.collectUptime(g)
	h.collectAllocated(g, allocs)
}

// warnOnce logs the first failure of a source: the same failure every
// interval would flood the log.
func (h *hostMetrics) warnOnce(source string, err error) {
	if h.warned[source] {
		return
	}
	h.warned[source] = true
	h.logger.Warn("host metrics unavailable; not publishing them", "metrics", source, "error", err)
}

func (h *hostMetrics) collectMemory(g gaugeSink) {
	m, err := readMeminfo(filepath.Join(h.proc, "meminfo"))
	if err != nil {
		h.warnOnce("memory", err)
		return
	}
	g.SetGaugeWithLabels(metricHostMemoryTotal, float32(m.total), h.labels)
	g.SetGaugeWithLabels(metricHostMemoryAvailable, float32(m.available), h.labels)
	g.SetGaugeWithLabels(metricHostMemoryUsed, float32(m.used()), h.labels)
	g.SetGaugeWithLabels(metricHostMemoryFree, float32(m.free), h.labels)
}

func (h *hostMetrics) collectCPU(g gaugeSink) {
	cpus, err := readCPUTimes(filepath.Join(h.proc, "stat"))
	if err != nil {
		h.warnOnce("cpu", err)
		return
	}
	for _, c := range cpus {
		prev, seen := h.cpuPrev[c.name]
		h.cpuPrev[c.name] = c.cpuTimes
		if !seen {
			continue // use is measured over an interval: from the next one
		}
		pct, ok := cpuPercents(prev, c.cpuTimes)
		if !ok {
			continue
		}
		labels := h.cpuLabels[c.name]
		if labels == nil {
			labels = withLabels(h.labels, metrics.Label{Name: "cpu", Value: c.name})
			h.cpuLabels[c.name] = labels
		}
		g.SetGaugeWithLabels(metricHostCPUTotal, float32(pct.total), labels)
		g.SetGaugeWithLabels(metricHostCPUUser, float32(pct.user), labels)
		g.SetGaugeWithLabels(metricHostCPUSystem, float32(pct.system), labels)
		g.SetGaugeWithLabels(metricHostCPUIdle, float32(pct.idle), labels)
	}
}

func (h *hostMetrics) collectDisk(g gaugeSink) {
	u, err := statDisk(h.allocDir)
	if err != nil {
		h.warnOnce("disk", err)
		return
	}
	if h.diskLabels == nil {
		h.diskLabels = withLabels(h.labels, metrics.Label{Name: "disk", Value: h.allocDirDevice()})
	}
	g.SetGaugeWithLabels(metricHostDiskSize, float32(u.size), h.diskLabels)
	g.SetGaugeWithLabels(metricHostDiskUsed, float32(u.used), h.diskLabels)
	g.SetGaugeWithLabels(metricHostDiskAvailable, float32(u.available), h.diskLabels)
	g.SetGaugeWithLabels(metricHostDiskUsedPercent, float32(u.usedPercent()), h.diskLabels)
	if pct, ok := u.inodesPercent(); ok {
		g.SetGaugeWithLabels(metricHostDiskInodesPercent, float32(pct), h.diskLabels)
	}
}

// allocDirDevice names the device the alloc dir's filesystem is mounted
// from, as the mount table has it; the alloc dir itself when the table
// does not tell.
func (h *hostMetrics) allocDirDevice() string {
	path, err := filepath.EvalSymlinks(h.allocDir)
	if err != nil {
		path = h.allocDir
	}
	f, err := os.Open(filepath.Join(h.proc, "self", "mountinfo"))
	if err != nil {
		return h.allocDir
	}
	defer f.Close()
	if dev, ok := mountSource(f, path); ok {
		return dev
	}
	return h.allocDir
}

func (h *hostMetrics) collectUptime(g gaugeSink) {
	up, err := readUptime()
	if err != nil {
		h.warnOnce("uptime", err)
		return
	}
	g.SetGaugeWithLabels(metricUptime, float32(up), h.labels)
}

// collectAllocated reports what the allocations meant to run hold of the
// node, and what is left of its capacity, as the scheduler counts them:
// CPU in MHz (reserved cores at the node's MHz per core), memory and disk
// in MB.
func (h *hostMetrics) collectAllocated(g gaugeSink, allocs []*structs.Allocation) {
	var cpu, memoryMB, diskMB int64
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		r := allocResources(a)
		cpu += cpuShares(r, h.sharesPerCore)
		memoryMB += int64(r.MemoryMB)
		diskMB += int64(r.DiskMB)
	}
	g.SetGaugeWithLabels(metricAllocatedCPU, float32(cpu), h.labels)
	g.SetGaugeWithLabels(metricAllocatedMemory, float32(memoryMB), h.labels)
	g.SetGaugeWithLabels(metricAllocatedDisk, float32(diskMB), h.labels)
	g.SetGaugeWithLabels(metricUnallocatedCPU, float32(int64(h.capacity.CPU)-cpu), h.labels)
	g.SetGaugeWithLabels(metricUnallocatedMemory, float32(int64(h.capacity.MemoryMB)-memoryMB), h.labels)
	g.SetGaugeWithLabels(metricUnallocatedDisk, float32(int64(h.capacity.DiskMB)-diskMB), h.labels)
}

// allocResources is what an allocation holds, as the scheduler counts
// it: its recorded total, else the sum of its tasks', else what its
// group's tasks ask for (the defaults for a task that asks for nothing).
func allocResources(a *structs.Allocation) *structs.Resources {
	if a.Resources != nil {
		return a.Resources
	}
	sum := &structs.Resources{}
	if len(a.TaskResources) > 0 {
		for _, r := range a.TaskResources {
			sum.Add(r)
		}
		return sum
	}
	if tg := a.LookupTaskGroup(); tg != nil {
		for _, t := range tg.Tasks {
			r := t.Resources
			if r == nil {
				r = structs.DefaultResources()
			}
			sum.Add(r)
		}
	}
	return sum
}

// memInfo is what the client reads from /proc/meminfo, in bytes.
type memInfo struct {
	total, free, available uint64
}

// used is the memory in use: what is not available, as free(1) counts
// it. Page cache the kernel can drop is available, not used.
func (m memInfo) used() uint64 {
	if m.available > m.total {
		return 0
	}
	return m.total - m.available
}

func readMeminfo(path string) (memInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return memInfo{}, err
	}
	defer f.Close()
	m, err := parseMeminfo(f)
	if err != nil {
		return memInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// parseMeminfo reads the fields of a meminfo file the gauges need. On
// kernels older than 3.14, which have no MemAvailable, the available
// memory is estimated as free memory plus buffers and page cache.
func parseMeminfo(r io.Reader) (memInfo, error) {
	var m memInfo
	var buffers, cached uint64
	var haveTotal, haveFree, haveAvailable bool
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *uint64
		switch key {
		case "MemTotal":
			dst, haveTotal = &m.total, true
		case "MemFree":
			dst, haveFree = &m.free, true
		case "MemAvailable":
			dst, haveAvailable = &m.available, true
		case "Buffers":
			dst = &buffers
		case "Cached":
			dst = &cached
		default:
			continue
		}
		n, err := parseMeminfoValue(rest)
		if err != nil {
			return memInfo{}, fmt.Errorf("%s: %w", key, err)
		}
		*dst = n
	}
	if err := sc.Err(); err != nil {
		return memInfo{}, err
	}
	if !haveTotal || !haveFree {
		return memInfo{}, fmt.Errorf("no MemTotal or MemFree")
	}
	if !haveAvailable {
		m.available = min(m.free+buffers+cached, m.total)
	}
	return m, nil
}

// parseMeminfoValue reads "  16384 kB" as bytes.
func parseMeminfoValue(s string) (uint64, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return 0, fmt.Errorf("no value")
	}
	n, err := strconv.ParseUint(fields[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("value %q: %w", fields[0], err)
	}
	if len(fields) > 1 && strings.EqualFold(fields[1], "kB") {
		n *= 1024
	}
	return n, nil
}

// cpuTimes is one CPU's time since boot, in clock ticks, in the four
// figures the gauges report. all is every tick counted, busy or not.
type cpuTimes struct {
	user, system, idle, all uint64
}

// namedCPUTimes is a CPU's times and its name ("cpu0").
type namedCPUTimes struct {
	name string
	cpuTimes
}

func readCPUTimes(path string) ([]namedCPUTimes, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cpus, err := parseCPUTimes(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cpus, nil
}

// parseCPUTimes reads the per-CPU lines of a /proc/stat file, in its
// order; the line summing all CPUs is left out. Of the columns user, nice,
// system, idle, iowait, irq, softirq and steal (guest time is already in
// user), user time counts nice time too, system time counts interrupts,
// and idle time counts time waiting for I/O.
func parseCPUTimes(r io.Reader) ([]namedCPUTimes, error) {
	var out []namedCPUTimes
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || !isPerCPU(fields[0]) {
			continue
		}
		if len(fields) < 5 {
			return nil, fmt.Errorf("%s: %d columns, want at least 4", fields[0], len(fields)-1)
		}
		var v [8]uint64
		for i := 0; i < len(v) && i+1 < len(fields); i++ {
			n, err := strconv.ParseUint(fields[i+1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: column %d: %w", fields[0], i+1, err)
			}
			v[i] = n
		}
		user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		out = append(out, namedCPUTimes{name: fields[0], cpuTimes: cpuTimes{
			user:   user + nice,
			system: system + irq + softirq,
			idle:   idle + iowait,
			all:    user + nice + system + idle + iowait + irq + softirq + steal,
		}})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no per-CPU lines")
	}
	return out, nil
}

// isPerCPU reports whether a /proc/stat line's first field names one CPU:
// "cpu" followed by its number.
func isPerCPU(name string) bool {
	n, ok := strings.CutPrefix(name, "cpu")
	if !ok || n == "" {
		return false
	}
	_, err := strconv.ParseUint(n, 10, 32)
	return err == nil
}

// cpuPercent is one CPU's use over an interval, in percent of the
// interval. total is the time it was not idle.
type cpuPercent struct {
	total, user, system, idle float64
}

// cpuPercents is a CPU's use between two readings; ok is false when no
// tick passed or a counter went back (the CPU went offline and came back).
func cpuPercents(prev, cur cpuTimes) (cpuPercent, bool) {
	if cur.all <= prev.all || cur.user < prev.user || cur.system < prev.system || cur.idle < prev.idle {
		return cpuPercent{}, false
	}
	all := float64(cur.all - prev.all)
	p := cpuPercent{
		user:   100 * float64(cur.user-prev.user) / all,
		system: 100 * float64(cur.system-prev.system) / all,
		idle:   100 * float64(cur.idle-prev.idle) / all,
	}
	p.total = max(100-p.idle, 0)
	return p, true
}

// diskUsage is a filesystem's size and use, in bytes, as statfs(2) tells
// it.
type diskUsage struct {
	size, used, available uint64
	inodes, inodesFree    uint64
}

// usedPercent is the used share of what non-root users can use, as df(1)
// counts it: blocks reserved for root are neither used nor available.
func (u diskUsage) usedPercent() float64 {
	if u.used+u.available == 0 {
		return 0
	}
	return 100 * float64(u.used) / float64(u.used+u.available)
}

// inodesPercent is the share of inodes in use; ok is false on
// filesystems without a fixed number of inodes.
func (u diskUsage) inodesPercent() (float64, bool) {
	if u.inodes == 0 || u.inodesFree > u.inodes {
		return 0, false
	}
	return 100 * float64(u.inodes-u.inodesFree) / float64(u.inodes), true
}

// mountSource returns the source (the device) of the mount that holds
// path, an absolute path without symbolic links, from a mountinfo file:
// the mount whose mount point is the longest prefix of path, the last
// such mount when several are stacked on one point.
func mountSource(r io.Reader, path string) (string, bool) {
	var best, source string
	found := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// 36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, after := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(after) < 2 {
			continue
		}
		point := unescapeMountPath(fields[4])
		if !pathWithin(path, point) || len(point) < len(best) {
			continue
		}
		best, source, found = point, unescapeMountPath(after[1]), true
	}
	return source, found
}

// pathWithin reports whether path is dir or below it.
func pathWithin(path, dir string) bool {
	if dir == "/" || path == dir {
		return true
	}
	rest, ok := strings.CutPrefix(path, dir)
	return ok && strings.HasPrefix(rest, "/")
}

// unescapeMountPath undoes the octal escapes (\040 for a space) the
// kernel writes in mountinfo paths.
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
