package fingerprint

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// fakeHost lays out a machine's files under a temporary directory.
func fakeHost(t *testing.T, files map[string]string) *Host {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		path := filepath.Join(root, rel)
		must.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	return &Host{
		ProcDir:   filepath.Join(root, "proc"),
		SysDir:    filepath.Join(root, "sys"),
		OSRelease: filepath.Join(root, "etc", "os-release"),
		Hostname:  func() (string, error) { return "box-1", nil },
	}
}

const fourCores = `processor	: 0
model name	: Test CPU 9000
cpu MHz		: 2500.000

processor	: 1
cpu MHz		: 1200.000

processor	: 2

processor	: 3
`

func TestFingerprint_FakeMachine(t *testing.T) {
	h := fakeHost(t, map[string]string{
		"proc/cpuinfo":              fourCores,
		"proc/meminfo":              "MemTotal:       2048 kB\nMemFree: 1 kB\n",
		"proc/sys/kernel/osrelease": "6.1.0-test\n",
		"proc/sys/kernel/arch":      "x86_64\n",
		"etc/os-release":            "NAME=\"Debian\"\nID=debian\nVERSION_ID=\"12\"\n",
	})
	res, err := h.Fingerprint()
	must.NoError(t, err)

	want := map[string]string{
		"kernel.name":           runtime.GOOS,
		"kernel.version":        "6.1.0-test",
		"kernel.arch":           "x86_64",
		"cpu.arch":              runtime.GOARCH,
		"cpu.numcores":          "4",
		"cpu.frequency":         "2500",
		"cpu.totalcompute":      "10000",
		"cpu.modelname":         "Test CPU 9000",
		"memory.totalbytes":     "2097152",
		"unique.hostname":       "box-1",
		"os.name":               "debian",
		"os.version":            "12",
		structs.NodeAttrVersion: res.Attributes[structs.NodeAttrVersion],
	}
	must.MapEq(t, want, res.Attributes)
	must.NotEq(t, "", res.Attributes[structs.NodeAttrVersion])
	must.Eq(t, structs.NodeCpuResources{CpuShares: 10000, TotalCpuCores: 4}, res.Resources.Cpu)
	must.Eq(t, int64(2), res.Resources.Memory.MemoryMB)
}

func TestFingerprint_ClockRateFallbacks(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			name: "sysfs max frequency",
			files: map[string]string{
				"proc/cpuinfo": "processor : 0\nprocessor : 1\n",
				"sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq": "1800000\n",
			},
			want: "3600",
		},
		{
			name:  "nothing known",
			files: map[string]string{"proc/cpuinfo": "processor : 0\nprocessor : 1\n"},
			want:  strconv.Itoa(2 * fallbackMHz),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.files["proc/meminfo"] = "MemTotal: 1024 kB\n"
			res, err := fakeHost(t, tc.files).Fingerprint()
			must.NoError(t, err)
			must.Eq(t, tc.want, res.Attributes["cpu.totalcompute"])
			must.MapNotContainsKey(t, res.Attributes, "os.name")
		})
	}
}

func TestFingerprint_Errors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no cpuinfo", map[string]string{"proc/meminfo": "MemTotal: 1 kB\n"}, "fingerprint CPU"},
		{"no processor", map[string]string{"proc/cpuinfo": "flags : x\n", "proc/meminfo": "MemTotal: 1 kB\n"}, "lists no processor"},
		{"no MemTotal", map[string]string{"proc/cpuinfo": "processor : 0\n", "proc/meminfo": "MemFree: 1 kB\n"}, "has no MemTotal"},
		{"bad MemTotal", map[string]string{"proc/cpuinfo": "processor : 0\n", "proc/meminfo": "MemTotal: lots kB\n"}, `MemTotal "lots"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fakeHost(t, tc.files).Fingerprint()
			must.ErrorContains(t, err, tc.want)
		})
	}
}

func TestFingerprint_LocalHost(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	res, err := LocalHost(nil, dir).Fingerprint()
	must.NoError(t, err)
	cores, err := strconv.Atoi(res.Attributes["cpu.numcores"])
	must.NoError(t, err)
	must.Positive(t, cores)
	must.Eq(t, uint16(cores), res.Resources.Cpu.TotalCpuCores)
	must.Positive(t, res.Resources.Cpu.CpuShares)
	must.Positive(t, res.Resources.Memory.MemoryMB)
	must.Positive(t, res.Resources.Disk.DiskMB)
	host, _ := os.Hostname()
	must.Eq(t, host, res.Attributes["unique.hostname"])
	must.Eq(t, "linux", res.Attributes["kernel.name"])
	must.Eq(t, dir, res.Attributes["unique.storage.volume"])
}
