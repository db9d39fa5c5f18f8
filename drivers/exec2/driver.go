package exec2

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/exec"
	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/drivers/rawexec"
)

// DriverName is the exec2 driver's name, as Nomad's plugin calls it.
const DriverName = "exec2"

// Config is the agent's configuration of the driver.
type Config struct {
	Plugin *PluginConfig
	// SupervisorCmd is raw_exec's (see rawexec.Config).
	SupervisorCmd []string
}

// Driver is the exec2 driver: raw_exec's driver and supervisors, with
// each task confined by Landlock.
type Driver struct {
	*rawexec.Driver
	plugin *PluginConfig
	// unusable says why tasks cannot run here; empty when they can.
	unusable string
}

var _ drivers.Driver = (*Driver)(nil)

// New returns an exec2 driver.
func New(logger hclog.Logger, cfg Config) *Driver {
	plugin := cfg.Plugin
	if plugin == nil {
		plugin, _ = ParsePluginConfig(nil)
	}
	d := &Driver{plugin: plugin, unusable: unusable(plugin)}
	d.Driver = rawexec.New(logger, rawexec.Config{
		Enabled:       d.unusable == "",
		SupervisorCmd: cfg.SupervisorCmd,
		Name:          DriverName,
		Isolate:       d.isolation,
	})
	return d
}

// errNoLandlock is why a kernel without Landlock cannot run exec2 tasks.
var errNoLandlock = errors.New("the kernel has no Landlock LSM (it needs CONFIG_SECURITY_LANDLOCK and landlock in its lsm= list, Linux 5.13 or later), which exec2 confines tasks with")

// unusable says why this machine cannot run exec2 tasks, or "".
func unusable(plugin *PluginConfig) string {
	if !plugin.Enabled {
		return "disabled"
	}
	if why := exec.Unusable(); why != "" {
		return why
	}
	if isolate.LandlockABI() == 0 {
		return errNoLandlock.Error()
	}
	return ""
}

// Fingerprint reports the driver where it can confine tasks, and not
// detected, with the reason, where it cannot: a node without Landlock is
// no node for exec2 tasks, and placement says they miss the driver.
func (d *Driver) Fingerprint(context.Context) *drivers.Fingerprint {
	fp := &drivers.Fingerprint{Attributes: map[string]string{}}
	if d.unusable != "" {
		fp.HealthDescription = d.unusable
		return fp
	}
	fp.Detected, fp.Healthy, fp.HealthDescription = true, true, "healthy"
	fp.Attributes["driver."+DriverName] = "1"
	fp.Attributes["driver."+DriverName+".unveil.defaults"] = strconv.FormatBool(d.plugin.UnveilDefaults)
	fp.Attributes["driver."+DriverName+".unveil.tasks"] = strconv.FormatBool(d.plugin.UnveilByTask)
	fp.Attributes["driver."+DriverName+".landlock_abi"] = strconv.Itoa(isolate.LandlockABI())
	return fp
}

// isolation reads a task's config and says how it runs confined.
func (d *Driver) isolation(cfg *drivers.TaskConfig) (*rawexec.IsolatedTask, error) {
	r, err := configschema.Exec2.Read(cfg.Config)
	if err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	command, args, unveilConf := r.String("command"), r.StringList("args"), r.StringList("unveil")
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	if len(unveilConf) > 0 && !d.plugin.UnveilByTask {
		return nil, errors.New(`config key "unveil": this client does not let tasks unveil paths (its exec2 plugin config's unveil_by_task is false)`)
	}
	var unveil []configschema.Unveil
	for i, s := range unveilConf {
		u, err := configschema.ParseUnveil(s)
		if err != nil {
			return nil, fmt.Errorf(`config key "unveil": entry %d: %w`, i, err)
		}
		unveil = append(unveil, u)
	}
	spec := &isolate.Spec{HostRoot: true, PrivatePID: true, PrivateIPC: true}
	if err := exec.PlaceDirs(spec, cfg); err != nil {
		return nil, err
	}
	if spec.User, err = exec.LookupUser(cfg.User); err != nil {
		return nil, err
	}
	if spec.Cgroup, err = exec.TaskCgroup(cfg); err != nil {
		return nil, err
	}
	spec.Unveil = unveilRules(d.plugin, filepath.Join(spec.AllocRoot, spec.TaskName), filepath.Join(spec.AllocRoot, spec.AllocDirName), unveil)
	return &rawexec.IsolatedTask{Command: command, Args: args, Env: cfg.Env, Isolation: spec}, nil
}
