package client

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// HostStats is the node's resource use, in the shape of Nomad's
// /v1/client/stats.
type HostStats struct {
	Memory           *HostMemoryStats
	CPU              []*HostCPUStats
	DiskStats        []*HostDiskStats
	AllocDirStats    *HostDiskStats
	DeviceStats      []any
	Uptime           uint64
	Timestamp        int64
	CPUTicksConsumed float64
}

// HostMemoryStats is the node's memory in bytes, as /proc/meminfo tells it.
type HostMemoryStats struct {
	Total     uint64
	Available uint64
	Used      uint64
	Free      uint64
}

// HostCPUStats is one CPU's use in percent.
type HostCPUStats struct {
	CPU          string
	User         float64
	System       float64
	Idle         float64
	TotalPercent float64
}

// HostDiskStats is one filesystem's size and use.
type HostDiskStats struct {
	Device            string
	Mountpoint        string
	Size              uint64
	Used              uint64
	Available         uint64
	UsedPercent       float64
	InodesUsedPercent float64
}

// hostCPUSampler remembers each CPU's times at the previous request, so
// that CPU use is measured over the time between two requests, as
// Nomad's collector measures it over its interval. The first request,
// with nothing before it, measures since boot.
type hostCPUSampler struct {
	mu   sync.Mutex
	prev map[string]cpuTimes
}

// sample reads /proc/stat from proc and returns each CPU's use since the
// previous sample.
func (s *hostCPUSampler) sample(proc string) ([]*HostCPUStats, error) {
	cpus, err := readCPUTimes(filepath.Join(proc, "stat"))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prev == nil {
		s.prev = map[string]cpuTimes{}
	}
	out := make([]*HostCPUStats, 0, len(cpus))
	for _, c := range cpus {
		pct, ok := cpuPercents(s.prev[c.name], c.cpuTimes)
		if !ok {
			// No tick since the previous request: since boot.
			pct, _ = cpuPercents(cpuTimes{}, c.cpuTimes)
		}
		s.prev[c.name] = c.cpuTimes
		out = append(out, &HostCPUStats{CPU: c.name, User: pct.user, System: pct.system, Idle: pct.idle, TotalPercent: pct.total})
	}
	return out, nil
}

// HostStats reports the node's memory, per-CPU use, filesystems and
// uptime. CPUTicksConsumed is the CPU in use, in MHz: each CPU's busy
// share of its MHz.
func (c *Client) HostStats() (*HostStats, error) {
	return hostStats(procDir, c.config.AllocDir, float64(sharesPerCore(c.node)), &c.hostCPU)
}

func hostStats(proc, allocDir string, mhzPerCore float64, cpu *hostCPUSampler) (*HostStats, error) {
	out := &HostStats{Timestamp: time.Now().UnixNano(), CPU: []*HostCPUStats{}, DiskStats: []*HostDiskStats{}, DeviceStats: []any{}}
	m, err := readMeminfo(filepath.Join(proc, "meminfo"))
	if err != nil {
		return nil, fmt.Errorf("host memory: %w", err)
	}
	out.Memory = &HostMemoryStats{Total: m.total, Available: m.available, Used: m.used(), Free: m.free}
	if out.CPU, err = cpu.sample(proc); err != nil {
		return nil, fmt.Errorf("host CPU: %w", err)
	}
	for _, c := range out.CPU {
		out.CPUTicksConsumed += c.TotalPercent / 100 * mhzPerCore
	}
	up, err := readUptimeFrom(proc)
	if err != nil {
		return nil, fmt.Errorf("host uptime: %w", err)
	}
	out.Uptime = uint64(math.Max(up, 0))
	mounts, err := deviceMounts(filepath.Join(proc, "self", "mountinfo"))
	if err != nil {
		return nil, fmt.Errorf("host disks: %w", err)
	}
	for _, mnt := range mounts {
		if d, err := diskStats(mnt.device, mnt.point); err == nil {
			out.DiskStats = append(out.DiskStats, d)
		}
	}
	if allocDir != "" {
		path, err := filepath.EvalSymlinks(allocDir)
		if err != nil {
			path = allocDir
		}
		device := allocDir
		if f, err := os.Open(filepath.Join(proc, "self", "mountinfo")); err == nil {
			if dev, ok := mountSource(f, path); ok {
				device = dev
			}
			f.Close()
		}
		if d, err := diskStats(device, allocDir); err == nil {
			out.AllocDirStats = d
		}
	}
	return out, nil
}

func diskStats(device, mountpoint string) (*HostDiskStats, error) {
	u, err := statDisk(mountpoint)
	if err != nil {
		return nil, err
	}
	d := &HostDiskStats{Device: device, Mountpoint: mountpoint, Size: u.size, Used: u.used, Available: u.available, UsedPercent: u.usedPercent()}
	d.InodesUsedPercent, _ = u.inodesPercent()
	return d, nil
}

// readUptimeFrom returns the seconds since boot from proc's uptime file.
func readUptimeFrom(proc string) (float64, error) {
	f, err := os.Open(filepath.Join(proc, "uptime"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var up float64
	if _, err := fmt.Fscan(f, &up); err != nil {
		return 0, fmt.Errorf("%s/uptime: %w", proc, err)
	}
	return up, nil
}

// mount is a filesystem mounted from a device.
type mount struct{ device, point string }

// deviceMounts lists the filesystems mounted from block devices (a
// source under /dev/), each device once at its first mount point, as
// Nomad lists the node's disks.
func deviceMounts(mountinfo string) ([]mount, error) {
	f, err := os.Open(mountinfo)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseDeviceMounts(f)
}

func parseDeviceMounts(r io.Reader) ([]mount, error) {
	var out []mount
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, after := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(after) < 2 {
			continue
		}
		dev := unescapeMountPath(after[1])
		if !strings.HasPrefix(dev, "/dev/") || seen[dev] {
			continue
		}
		seen[dev] = true
		out = append(out, mount{device: dev, point: unescapeMountPath(fields[4])})
	}
	return out, sc.Err()
}
