package fingerprint

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// cpuInfo is what /proc/cpuinfo tells.
type cpuInfo struct {
	cores int
	// mhz is the clock rate of the first processor listed, 0 if none is.
	mhz   float64
	model string
}

// readCPUInfo counts the logical processors in a cpuinfo file and reads
// the first one's clock rate and model name.
func readCPUInfo(path string) (cpuInfo, error) {
	var info cpuInfo
	f, err := os.Open(path)
	if err != nil {
		return info, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "processor":
			info.cores++
		case "cpu MHz":
			if info.mhz == 0 {
				if mhz, err := strconv.ParseFloat(value, 64); err == nil && mhz > 0 {
					info.mhz = mhz
				}
			}
		case "model name":
			if info.model == "" {
				info.model = value
			}
		}
	}
	if err := sc.Err(); err != nil {
		return info, fmt.Errorf("read %s: %w", path, err)
	}
	if info.cores == 0 {
		return info, fmt.Errorf("%s lists no processor", path)
	}
	return info, nil
}

// readMaxFreqMHz reads the first CPU's top clock rate from sysfs, in MHz,
// or 0 when sysfs does not have it.
func readMaxFreqMHz(sysDir string) float64 {
	s, err := readTrimmed(filepath.Join(sysDir, "devices", "system", "cpu", "cpu0", "cpufreq", "cpuinfo_max_freq"))
	if err != nil {
		return 0
	}
	khz, err := strconv.ParseFloat(s, 64)
	if err != nil || khz <= 0 {
		return 0
	}
	return khz / 1000
}

// readMemTotal returns MemTotal from a meminfo file, in bytes.
func readMemTotal(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			break
		}
		n, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: MemTotal %q: %w", path, fields[0], err)
		}
		if len(fields) > 1 && strings.EqualFold(fields[1], "kB") {
			n *= 1024
		}
		return n, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	return 0, fmt.Errorf("%s has no MemTotal", path)
}

// readOSRelease returns ID and VERSION_ID from an os-release file.
func readOSRelease(path string) (name, version string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		value = strings.Trim(value, `"'`)
		switch key {
		case "ID":
			name = value
		case "VERSION_ID":
			version = value
		}
	}
	if name == "" {
		return "", "", errors.New(path + " has no ID")
	}
	return name, version, nil
}

// freeDiskBytes is the space unprivileged users may still use on the file
// system holding dir.
func freeDiskBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}

func readTrimmed(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return s, nil
}
