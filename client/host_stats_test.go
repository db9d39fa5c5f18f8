package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

func writeProc(t *testing.T, dir, stat string) {
	t.Helper()
	must.NoError(t, os.MkdirAll(filepath.Join(dir, "self"), 0o755))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "meminfo"), []byte(meminfoFixture), 0o644))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "uptime"), []byte("4242.17 8000.00\n"), 0o644))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "self", "mountinfo"), []byte("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"), 0o644))
}

func TestHostStats_MeasuresBetweenRequests(t *testing.T) {
	proc := t.TempDir()
	writeProc(t, proc, "cpu0 100 0 100 800 0 0 0 0\ncpu1 0 0 0 1000 0 0 0 0\n")
	var sampler hostCPUSampler
	s, err := hostStats(proc, "", 1000, &sampler)
	must.NoError(t, err)
	must.Eq(t, &HostMemoryStats{Total: 16283260 << 10, Available: 9470116 << 10, Used: (16283260 - 9470116) << 10, Free: 1021348 << 10}, s.Memory)
	must.Eq(t, uint64(4242), s.Uptime)
	must.Len(t, 2, s.CPU)
	// Since boot: cpu0 was busy a fifth of its ticks.
	must.Eq(t, "cpu0", s.CPU[0].CPU)
	must.Eq(t, 10.0, s.CPU[0].User)
	must.Eq(t, 20.0, s.CPU[0].TotalPercent)
	must.Eq(t, 200.0, s.CPUTicksConsumed)

	// The second request measures what happened since the first: cpu1
	// was busy for all of its 100 new ticks.
	writeProc(t, proc, "cpu0 100 0 100 900 0 0 0 0\ncpu1 100 0 0 1000 0 0 0 0\n")
	s, err = hostStats(proc, "", 1000, &sampler)
	must.NoError(t, err)
	must.Eq(t, 0.0, s.CPU[0].TotalPercent)
	must.Eq(t, 100.0, s.CPU[1].User)
	must.Eq(t, 1000.0, s.CPUTicksConsumed)
}

func TestHostStats_MissingSource(t *testing.T) {
	_, err := hostStats(t.TempDir(), "", 1000, &hostCPUSampler{})
	must.ErrorContains(t, err, "host memory")
}

func TestParseDeviceMounts(t *testing.T) {
	in := strings.Join([]string{
		"22 1 8:1 / / rw - ext4 /dev/sda1 rw",
		"23 22 0:5 / /proc rw - proc proc rw",
		"24 22 8:1 /srv /mnt/with\\040space rw - ext4 /dev/sda1 rw",
		"25 22 8:2 / /data rw - xfs /dev/sdb1 rw",
		"malformed",
	}, "\n")
	got, err := parseDeviceMounts(strings.NewReader(in))
	must.NoError(t, err)
	must.Eq(t, []mount{{"/dev/sda1", "/"}, {"/dev/sdb1", "/data"}}, got)
}
