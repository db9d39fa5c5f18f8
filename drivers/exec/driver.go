package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/drivers/internal/taskuser"
	"github.com/drover-io/drover/drivers/rawexec"
)

// DriverName is the exec driver's name, as in Nomad.
const DriverName = "exec"

// Config is the agent's configuration of the driver.
type Config struct {
	Plugin *PluginConfig
	// SupervisorCmd is raw_exec's (see rawexec.Config).
	SupervisorCmd []string

	// Name and ReadTask make this driver another that runs its tasks as
	// exec does (java): its name, and what a task's config runs. Empty,
	// the driver is exec, reading configschema.Exec.
	Name     string
	ReadTask func(cfg *drivers.TaskConfig) (*Task, error)
}

// Driver is the exec driver: raw_exec's driver and supervisors, with each
// task isolated.
type Driver struct {
	*rawexec.Driver
	plugin   *PluginConfig
	name     string
	readTask func(cfg *drivers.TaskConfig) (*Task, error)
	// unusable says why tasks cannot run here; empty when they can.
	unusable string
}

var _ drivers.Driver = (*Driver)(nil)

// New returns an exec driver.
func New(logger hclog.Logger, cfg Config) *Driver {
	plugin := cfg.Plugin
	if plugin == nil {
		plugin, _ = ParsePluginConfig(nil, nil)
	}
	d := &Driver{plugin: plugin, name: cfg.Name, readTask: cfg.ReadTask, unusable: unusable(plugin)}
	if d.name == "" {
		d.name = DriverName
	}
	if d.readTask == nil {
		d.readTask = func(cfg *drivers.TaskConfig) (*Task, error) { return parseTaskConfig(cfg.Config) }
	}
	d.Driver = rawexec.New(logger, rawexec.Config{
		Enabled:       d.unusable == "",
		SupervisorCmd: cfg.SupervisorCmd,
		Name:          d.name,
		Isolate:       d.isolation,
	})
	return d
}

// Unusable says why this machine cannot run tasks isolated as exec
// isolates them, or "".
func Unusable() string {
	switch {
	case runtime.GOOS != "linux":
		return "isolating tasks needs Linux"
	case os.Geteuid() != 0:
		return "isolating tasks needs the agent to run as root"
	case isolate.CgroupVersion() == 0:
		return "no cgroup file system is mounted at /sys/fs/cgroup"
	}
	return ""
}

// unusable says why this machine cannot run the driver's tasks, or "".
func unusable(plugin *PluginConfig) string {
	if !plugin.Enabled {
		return "disabled"
	}
	return Unusable()
}

func (d *Driver) Fingerprint(context.Context) *drivers.Fingerprint {
	fp := &drivers.Fingerprint{Attributes: map[string]string{}, Detected: true}
	if d.unusable != "" {
		fp.HealthDescription = d.unusable
		return fp
	}
	fp.Healthy = true
	fp.HealthDescription = "healthy"
	fp.Attributes["driver."+d.name] = "1"
	fp.Attributes["driver."+d.name+".cgroup_version"] = strconv.Itoa(isolate.CgroupVersion())
	return fp
}

// isolation reads a task's config and says how it runs isolated.
func (d *Driver) isolation(cfg *drivers.TaskConfig) (*rawexec.IsolatedTask, error) {
	conf, err := d.readTask(cfg)
	if err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	spec := &isolate.Spec{ChrootEnv: d.plugin.ChrootEnv}
	if spec.PrivatePID, err = namespaceMode("pid_mode", conf.PIDMode, d.plugin.DefaultPIDMode); err != nil {
		return nil, err
	}
	if spec.PrivateIPC, err = namespaceMode("ipc_mode", conf.IPCMode, d.plugin.DefaultIPCMode); err != nil {
		return nil, err
	}
	if spec.Caps, err = capabilities(d.plugin.AllowCaps, conf.CapAdd, conf.CapDrop); err != nil {
		return nil, err
	}
	if spec.User, err = LookupUser(cfg.User); err != nil {
		return nil, err
	}
	if err := PlaceDirs(spec, cfg); err != nil {
		return nil, err
	}
	if spec.Volumes, err = volumes(cfg.Mounts); err != nil {
		return nil, err
	}
	if spec.Cgroup, err = TaskCgroup(cfg); err != nil {
		return nil, err
	}
	paths := rootPaths(cfg)
	args := make([]string, len(conf.Args))
	for i, a := range conf.Args {
		args[i] = paths.Replace(a)
	}
	return &rawexec.IsolatedTask{Command: paths.Replace(conf.Command), Args: args, Env: rootEnv(cfg.Env, paths), Isolation: spec}, nil
}

// rootPaths rewrites the host paths of the task's directories, as the
// client interpolated them into its config and environment
// (${NOMAD_TASK_DIR} is <task dir>/local on the host), into the paths
// the task sees in its root: the task directory is /, the shared one
// /alloc.
func rootPaths(cfg *drivers.TaskConfig) *strings.Replacer {
	var pairs []string
	if cfg.AllocDir != "" {
		pairs = append(pairs, filepath.Clean(cfg.AllocDir), "/alloc")
	}
	if cfg.TaskDir != "" {
		pairs = append(pairs, filepath.Clean(cfg.TaskDir)+"/", "/")
	}
	return strings.NewReplacer(pairs...)
}

// rootEnv is the task's environment with its directories as it sees
// them, as Nomad sets them for exec tasks.
func rootEnv(env map[string]string, paths *strings.Replacer) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		switch k {
		case "NOMAD_ALLOC_DIR":
			v = "/alloc"
		case "NOMAD_TASK_DIR":
			v = "/local"
		case "NOMAD_SECRETS_DIR":
			v = "/secrets"
		default:
			v = paths.Replace(v)
		}
		out[k] = v
	}
	return out
}

// PlaceDirs names the task's and the shared directory in the
// allocation's directory.
func PlaceDirs(spec *isolate.Spec, cfg *drivers.TaskConfig) error {
	root, err := filepath.Abs(cfg.AllocRoot())
	if err != nil || cfg.AllocRoot() == "" {
		return errors.New("the task has no allocation directory")
	}
	for _, d := range []struct {
		path string
		name *string
		what string
	}{{cfg.TaskDir, &spec.TaskName, "task"}, {cfg.AllocDir, &spec.AllocDirName, "alloc"}} {
		abs, err := filepath.Abs(d.path)
		if err != nil {
			return fmt.Errorf("%s directory: %w", d.what, err)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || !filepath.IsLocal(rel) || strings.Contains(rel, string(filepath.Separator)) {
			return fmt.Errorf("%s directory %s is not in the allocation directory %s", d.what, d.path, root)
		}
		*d.name = rel
	}
	spec.AllocRoot = root
	return nil
}

// LookupUser resolves the task's user on the host; none runs the task as
// root, held to its capabilities.
func LookupUser(name string) (*isolate.User, error) {
	if name == "" {
		return nil, nil
	}
	ids, err := taskuser.Lookup(name)
	if err != nil {
		return nil, err
	}
	return &isolate.User{UID: ids.UID, GID: ids.GID, Groups: ids.Groups}, nil
}

// TaskCgroup is the task's cgroup: its name and its resources' limits.
// memory is the hard limit; with memory_max, memory_max is, and memory
// is what the kernel protects, as Nomad sets them.
func TaskCgroup(cfg *drivers.TaskConfig) (isolate.CgroupSpec, error) {
	cg := isolate.CgroupSpec{Name: isolate.CgroupName(cfg.ID)}
	r := cfg.Resources
	if r == nil {
		return cg, nil
	}
	cg.CPUShares = uint64(max(r.CPU, 0))
	const mb = 1 << 20
	switch {
	case r.MemoryMaxMB > r.MemoryMB && r.MemoryMB > 0:
		cg.MemoryMax, cg.MemoryLow = int64(r.MemoryMaxMB)*mb, int64(r.MemoryMB)*mb
	case r.MemoryMB > 0:
		cg.MemoryMax = int64(r.MemoryMB) * mb
	}
	if r.Cores > 0 {
		cpus, err := pickCPUs(r.Cores)
		if err != nil {
			return cg, err
		}
		cg.Cpuset = cpus
	}
	return cg, nil
}
