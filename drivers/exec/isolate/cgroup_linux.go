package isolate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupRoot is where the cgroup file systems are mounted.
var cgroupRoot = "/sys/fs/cgroup"

// cgroupParent is the directory, in the unified hierarchy's root or
// beneath the agent's own cgroup of each v1 controller, holding the
// tasks' cgroups.
const cgroupParent = "drover"

// v1Controllers are the cgroup v1 controllers a task's cgroup joins.
// cpuacct, for the task's CPU times, only where it has a hierarchy apart
// from cpu's (co-mounted, cpu's directory holds them).
var v1Controllers = []string{"memory", "cpu", "cpuacct", "cpuset", "pids"}

// Cgroup is a task's cgroup: one directory on cgroup v2, one per
// controller on v1.
type Cgroup struct {
	v2   bool
	dirs map[string]string // controller ("" on v2) -> directory
}

// CgroupVersion reports the cgroup version the machine runs the tasks'
// cgroups with: 2 where the unified hierarchy is mounted at the root, 1
// where the controllers have hierarchies of their own, 0 where neither is
// usable.
func CgroupVersion() int {
	var st unix.Statfs_t
	if err := unix.Statfs(cgroupRoot, &st); err != nil {
		return 0
	}
	if st.Type == unix.CGROUP2_SUPER_MAGIC {
		return 2
	}
	if _, err := os.Stat(filepath.Join(cgroupRoot, "memory", "cgroup.procs")); err == nil {
		return 1
	}
	return 0
}

// CreateCgroup makes the task's cgroup and sets its limits.
func CreateCgroup(spec CgroupSpec) (*Cgroup, error) {
	if spec.Name == "" || strings.ContainsAny(spec.Name, "/\x00") || spec.Name == "." || spec.Name == ".." {
		return nil, fmt.Errorf("invalid cgroup name %q", spec.Name)
	}
	var (
		cg  *Cgroup
		err error
	)
	switch CgroupVersion() {
	case 2:
		cg, err = createV2(spec)
	case 1:
		cg, err = createV1(spec)
	default:
		return nil, fmt.Errorf("no cgroup file system at %s", cgroupRoot)
	}
	if err != nil {
		if cg != nil {
			_ = cg.Remove()
		}
		return nil, fmt.Errorf("cgroup %s: %w", spec.Name, err)
	}
	return cg, nil
}

func createV2(spec CgroupSpec) (*Cgroup, error) {
	parent := filepath.Join(cgroupRoot, cgroupParent)
	if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	// Each controller is enabled on its own: one the kernel lacks must not
	// keep the others off. A limit that needs a missing one fails below.
	for _, dir := range []string{cgroupRoot, parent} {
		for _, c := range []string{"cpu", "cpuset", "memory", "pids"} {
			_ = os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+"+c), 0)
		}
	}
	dir := filepath.Join(parent, spec.Name)
	if err := mkdirFresh(dir); err != nil {
		return nil, err
	}
	cg := &Cgroup{v2: true, dirs: map[string]string{"": dir}}
	writes := [][2]string{}
	if spec.CPUShares > 0 {
		writes = append(writes, [2]string{"cpu.weight", strconv.FormatUint(sharesToWeight(spec.CPUShares), 10)})
	}
	if spec.Cpuset != "" {
		writes = append(writes, [2]string{"cpuset.cpus", spec.Cpuset})
	}
	if spec.MemoryLow > 0 {
		writes = append(writes, [2]string{"memory.low", strconv.FormatInt(spec.MemoryLow, 10)})
	}
	if spec.MemoryMax > 0 {
		writes = append(writes, [2]string{"memory.max", strconv.FormatInt(spec.MemoryMax, 10)})
		// No swap: the limit is the task's memory, and a task over it is
		// killed rather than slowed down to a crawl.
		if _, err := os.Stat(filepath.Join(dir, "memory.swap.max")); err == nil {
			writes = append(writes, [2]string{"memory.swap.max", "0"})
		}
	}
	for _, w := range writes {
		if err := os.WriteFile(filepath.Join(dir, w[0]), []byte(w[1]), 0); err != nil {
			return cg, fmt.Errorf("set %s: %w", w[0], err)
		}
	}
	return cg, nil
}

// mkdirFresh makes a task's cgroup directory. One left by a supervisor
// that was killed before it could remove it is removed first, which the
// kernel allows only once no process is left in it.
func mkdirFresh(dir string) error {
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrExist) {
		if rerr := os.Remove(dir); rerr != nil {
			return fmt.Errorf("%w (and it cannot be removed: %v)", err, rerr)
		}
		err = os.Mkdir(dir, 0o755)
	}
	return err
}

// sharesToWeight maps cgroup v1 CPU shares (2..262144) onto cgroup v2's
// weight range (1..10000), linearly.
func sharesToWeight(shares uint64) uint64 {
	shares = min(max(shares, 2), 262144)
	return 1 + ((shares-2)*9999)/262142
}

func createV1(spec CgroupSpec) (*Cgroup, error) {
	own, err := ownCgroupsV1()
	if err != nil {
		return nil, err
	}
	cg := &Cgroup{dirs: map[string]string{}}
	hierarchies := map[string]bool{}
	for _, c := range v1Controllers {
		mount, ok := v1Mount(c)
		if !ok {
			continue
		}
		if real, err := filepath.EvalSymlinks(mount); err == nil {
			if hierarchies[real] {
				continue // co-mounted with one already joined
			}
			hierarchies[real] = true
		}
		parent := filepath.Join(mount, own[c], cgroupParent)
		if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return cg, err
		}
		dir := filepath.Join(parent, spec.Name)
		if err := mkdirFresh(dir); err != nil {
			return cg, err
		}
		cg.dirs[c] = dir
		if c == "cpuset" {
			// A new cpuset has no CPUs nor memory nodes: no process could
			// join it. It gets its parent's.
			for _, d := range []string{parent, dir} {
				for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
					if err := inheritV1(d, f); err != nil {
						return cg, err
					}
				}
			}
		}
	}
	if _, ok := cg.dirs["memory"]; !ok {
		return cg, errors.New("the memory controller is not mounted")
	}
	type write struct{ controller, file, value string }
	var writes []write
	if spec.CPUShares > 0 {
		writes = append(writes, write{"cpu", "cpu.shares", strconv.FormatUint(max(spec.CPUShares, 2), 10)})
	}
	if spec.Cpuset != "" {
		writes = append(writes, write{"cpuset", "cpuset.cpus", spec.Cpuset})
	}
	if spec.MemoryMax > 0 {
		v := strconv.FormatInt(spec.MemoryMax, 10)
		writes = append(writes, write{"memory", "memory.limit_in_bytes", v})
		if _, err := os.Stat(filepath.Join(cg.dirs["memory"], "memory.memsw.limit_in_bytes")); err == nil {
			writes = append(writes, write{"memory", "memory.memsw.limit_in_bytes", v})
		}
	}
	if spec.MemoryLow > 0 {
		writes = append(writes, write{"memory", "memory.soft_limit_in_bytes", strconv.FormatInt(spec.MemoryLow, 10)})
	}
	for _, w := range writes {
		dir, ok := cg.dirs[w.controller]
		if !ok {
			return cg, fmt.Errorf("set %s: the %s controller is not mounted", w.file, w.controller)
		}
		if err := os.WriteFile(filepath.Join(dir, w.file), []byte(w.value), 0); err != nil {
			return cg, fmt.Errorf("set %s: %w", w.file, err)
		}
	}
	return cg, nil
}

// inheritV1 copies a cpuset file from the directory's parent where the
// directory's own is empty.
func inheritV1(dir, file string) error {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) > 0 {
		return nil
	}
	p, err := os.ReadFile(filepath.Join(filepath.Dir(dir), file))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, file), bytes.TrimSpace(p), 0)
}

// v1Mount is where a v1 controller's hierarchy is mounted.
func v1Mount(controller string) (string, bool) {
	dir := filepath.Join(cgroupRoot, controller)
	if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
		return "", false
	}
	return dir, true
}

// ownCgroupsV1 reads this process's cgroup path per v1 controller.
func ownCgroupsV1() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, sc.Err()
}

// StartIn starts cmd with its process in the cgroup from its first
// instruction on, so that nothing it forks can be outside: on cgroup v2
// the kernel clones it into the cgroup; on v1, where it cannot, this
// process joins the cgroup for the fork and leaves it after.
func (c *Cgroup) StartIn(cmd *exec.Cmd) error {
	if c.v2 {
		dir, err := os.Open(c.dirs[""])
		if err != nil {
			return err
		}
		defer dir.Close()
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(dir.Fd())
		return cmd.Start()
	}
	own, err := ownCgroupsV1()
	if err != nil {
		return err
	}
	var back []string
	defer func() {
		for _, procs := range back {
			_ = os.WriteFile(procs, []byte("0"), 0)
		}
	}()
	for c2, dir := range c.dirs {
		mount, _ := v1Mount(c2)
		back = append(back, filepath.Join(mount, own[c2], "cgroup.procs"))
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte("0"), 0); err != nil {
			return fmt.Errorf("join cgroup %s: %w", dir, err)
		}
	}
	return cmd.Start()
}

// ProcsFiles are the cgroup.procs files a process writes to join the
// cgroup.
func (c *Cgroup) ProcsFiles() []string {
	var out []string
	for _, d := range c.dirs {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

// procsDir is the directory whose cgroup.procs lists every process of
// the task.
func (c *Cgroup) procsDir() string {
	if c.v2 {
		return c.dirs[""]
	}
	return c.dirs["memory"]
}

// Pids returns the processes in the cgroup, as this process's PID
// namespace numbers them.
func (c *Cgroup) Pids() ([]int, error) {
	b, err := os.ReadFile(filepath.Join(c.procsDir(), "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// killWait bounds how long Kill waits for the cgroup to empty.
const killWait = 10 * time.Second

// Kill kills every process in the cgroup and waits for the cgroup to
// empty. cgroup.kill does it at once where the kernel has it (v2, 5.14);
// otherwise each process is killed, again until none is left, so that
// one forked meanwhile goes too.
func (c *Cgroup) Kill() error {
	if c.v2 {
		_ = os.WriteFile(filepath.Join(c.dirs[""], "cgroup.kill"), []byte("1"), 0)
	}
	deadline := time.Now().Add(killWait)
	for {
		pids, err := c.Pids()
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup still holds %d processes %s after SIGKILL", len(pids), killWait)
		}
		self := os.Getpid()
		for _, pid := range pids {
			// Never the caller: a supervisor that could not leave the
			// cgroup after a fork (see StartIn) must live to record.
			if pid != self {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if len(pids) == 1 && pids[0] == self {
			return errors.New("the cgroup holds only this process")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// OOMKilled reports whether the kernel's OOM killer killed a process of
// the cgroup for being over its memory limit.
func (c *Cgroup) OOMKilled() bool {
	if c.v2 {
		return eventCount(filepath.Join(c.dirs[""], "memory.events"), "oom_kill") > 0
	}
	return eventCount(filepath.Join(c.dirs["memory"], "memory.oom_control"), "oom_kill") > 0
}

// eventCount reads a "key N" line of a cgroup's flat keyed file.
func eventCount(path, key string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == key {
			n, _ := strconv.ParseUint(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// Remove removes the cgroup's directories; it must hold no process.
func (c *Cgroup) Remove() error {
	var errs []error
	for _, d := range c.dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
