package java

import (
	"context"
	"errors"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/exec"
)

// DriverName is the java driver's name, as in Nomad.
const DriverName = "java"

// Config is the agent's configuration of the driver.
type Config struct {
	// Plugin is the java plugin block's config with the client's
	// chroot_env, read as exec's (its keys are exec's).
	Plugin *exec.PluginConfig
	// SupervisorCmd is raw_exec's (see rawexec.Config).
	SupervisorCmd []string
	// Java is the command that runs java on the host, for the
	// fingerprint; "java" (looked up in the agent's PATH) when empty.
	Java string
}

// Driver is the java driver: exec's, running java.
type Driver struct {
	*exec.Driver
	version *versionProbe
}

var _ drivers.Driver = (*Driver)(nil)

// New returns a java driver.
func New(logger hclog.Logger, cfg Config) *Driver {
	java := cfg.Java
	if java == "" {
		java = "java"
	}
	return &Driver{
		Driver: exec.New(logger, exec.Config{
			Plugin:        cfg.Plugin,
			SupervisorCmd: cfg.SupervisorCmd,
			Name:          DriverName,
			ReadTask:      readTask,
		}),
		version: &versionProbe{java: java},
	}
}

// Fingerprint reports the driver healthy where tasks can be isolated and
// `java -version` answers, with the version, runtime and VM it names.
func (d *Driver) Fingerprint(ctx context.Context) *drivers.Fingerprint {
	fp := d.Driver.Fingerprint(ctx)
	if !fp.Healthy {
		return fp
	}
	v, err := d.version.get(ctx)
	if err != nil {
		return &drivers.Fingerprint{Attributes: map[string]string{}, Detected: false, HealthDescription: err.Error()}
	}
	fp.Attributes["driver.java.version"] = v.Version
	fp.Attributes["driver.java.runtime"] = v.Runtime
	fp.Attributes["driver.java.vm"] = v.VM
	return fp
}

// readTask makes java's command line of a task's config:
// java <jvm_options> -jar <jar_path> <args>, or
// java <jvm_options> [-cp <class_path>] <class> <args>.
func readTask(cfg *drivers.TaskConfig) (*exec.Task, error) {
	r, err := configschema.Java.Read(cfg.Config)
	if err != nil {
		return nil, err
	}
	jar, class, classPath := r.String("jar_path"), r.String("class"), r.String("class_path")
	args := r.StringList("jvm_options")
	switch {
	case jar != "" && class != "":
		return nil, errors.New(`config keys "jar_path" and "class": set one, not both`)
	case jar != "":
		if classPath != "" {
			return nil, errors.New(`config key "class_path": java ignores it with "jar_path" (a jar names its class path in its manifest)`)
		}
		args = append(args, "-jar", jar)
	case class != "":
		if classPath != "" {
			args = append(args, "-cp", classPath)
		}
		args = append(args, class)
	default:
		return nil, errors.New(`config keys "jar_path" and "class": one must be set`)
	}
	args = append(args, r.StringList("args")...)
	t := &exec.Task{
		Command: "java",
		Args:    args,
		PIDMode: r.String("pid_mode"),
		IPCMode: r.String("ipc_mode"),
		CapAdd:  r.StringList("cap_add"),
		CapDrop: r.StringList("cap_drop"),
	}
	return t, r.Err()
}
