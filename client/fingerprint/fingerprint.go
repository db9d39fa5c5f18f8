package fingerprint

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/structs"
	"github.com/drover-io/drover/version"
)

// fallbackMHz is the clock rate assumed for each core when the machine does
// not tell it (some virtual machines and ARM boards): enough for the
// scheduler to place work, and logged so that the operator knows.
const fallbackMHz = 1000

// Host is the machine to fingerprint. Its fields point at the files it
// reads, so that tests can describe a machine of their own.
type Host struct {
	// ProcDir is the proc file system, "/proc" on a real machine.
	ProcDir string
	// SysDir is the sys file system, "/sys" on a real machine.
	SysDir string
	// OSRelease is the os-release file, "/etc/os-release" on a real machine.
	OSRelease string
	// DiskDir is a directory on the disk allocations use; its free space
	// is the node's disk capacity. Empty skips the disk.
	DiskDir string
	// Hostname returns the machine's name; nil means os.Hostname.
	Hostname func() (string, error)
	Logger   hclog.Logger
}

// LocalHost is the machine this process runs on, with allocations on the
// disk of allocDir.
func LocalHost(logger hclog.Logger, allocDir string) *Host {
	return &Host{
		ProcDir:   "/proc",
		SysDir:    "/sys",
		OSRelease: "/etc/os-release",
		DiskDir:   allocDir,
		Logger:    logger,
	}
}

// Result is what fingerprinting found.
type Result struct {
	// Attributes are node attributes without the "attr." prefix that
	// constraints put before them.
	Attributes map[string]string
	Resources  *structs.NodeResources
}

// Fingerprint inspects the machine. Only a machine whose CPU count or
// memory cannot be read at all is an error: the rest is best effort, and
// what cannot be learnt is left out.
func (h *Host) Fingerprint() (*Result, error) {
	logger := h.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	attrs := map[string]string{
		"kernel.name":           runtime.GOOS,
		"cpu.arch":              runtime.GOARCH,
		structs.NodeAttrVersion: version.Version,
	}
	res := &structs.NodeResources{}

	name, err := h.hostname()
	if err != nil {
		return nil, fmt.Errorf("fingerprint host name: %w", err)
	}
	attrs["unique.hostname"] = name

	cpu, err := readCPUInfo(filepath.Join(h.ProcDir, "cpuinfo"))
	if err != nil {
		return nil, fmt.Errorf("fingerprint CPU: %w", err)
	}
	if cpu.mhz <= 0 {
		cpu.mhz = readMaxFreqMHz(h.SysDir)
	}
	if cpu.mhz <= 0 {
		logger.Warn("CPU clock rate unknown; assuming a rate per core", "mhz", fallbackMHz)
		cpu.mhz = fallbackMHz
	}
	total := int64(float64(cpu.cores) * cpu.mhz)
	attrs["cpu.numcores"] = strconv.Itoa(cpu.cores)
	attrs["cpu.frequency"] = strconv.Itoa(int(cpu.mhz))
	attrs["cpu.totalcompute"] = strconv.FormatInt(total, 10)
	if cpu.model != "" {
		attrs["cpu.modelname"] = cpu.model
	}
	res.Cpu = structs.NodeCpuResources{CpuShares: total, TotalCpuCores: uint16(cpu.cores)}

	memBytes, err := readMemTotal(filepath.Join(h.ProcDir, "meminfo"))
	if err != nil {
		return nil, fmt.Errorf("fingerprint memory: %w", err)
	}
	attrs["memory.totalbytes"] = strconv.FormatUint(memBytes, 10)
	res.Memory = structs.NodeMemoryResources{MemoryMB: int64(memBytes >> 20)}

	if release, err := readTrimmed(filepath.Join(h.ProcDir, "sys", "kernel", "osrelease")); err == nil {
		attrs["kernel.version"] = release
	}
	if arch, err := readTrimmed(filepath.Join(h.ProcDir, "sys", "kernel", "arch")); err == nil {
		attrs["kernel.arch"] = arch
	}
	if osName, osVersion, err := readOSRelease(h.OSRelease); err == nil {
		attrs[structs.NodeAttrOSName] = osName
		if osVersion != "" {
			attrs[structs.NodeAttrOSVersion] = osVersion
		}
	} else {
		logger.Debug("operating system unknown", "error", err)
	}

	if h.DiskDir != "" {
		if free, err := freeDiskBytes(h.DiskDir); err == nil {
			attrs["unique.storage.volume"] = h.DiskDir
			attrs["unique.storage.bytesfree"] = strconv.FormatUint(free, 10)
			res.Disk = structs.NodeDiskResources{DiskMB: int64(free >> 20)}
		} else {
			logger.Warn("free disk space unknown", "dir", h.DiskDir, "error", err)
		}
	}
	return &Result{Attributes: attrs, Resources: res}, nil
}

func (h *Host) hostname() (string, error) {
	if h.Hostname != nil {
		return h.Hostname()
	}
	return os.Hostname()
}
