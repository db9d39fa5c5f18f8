package docker

import (
	"fmt"
	"time"

	units "github.com/docker/go-units"

	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// defaultImagePullTimeout bounds a pull when the task gives no
// image_pull_timeout, as in Nomad.
const defaultImagePullTimeout = 5 * time.Minute

// taskConfig is a docker task's `config` block, with Nomad's key names.
type taskConfig struct {
	// Image is the normalised reference, e.g. docker.io/prom/prometheus:latest.
	Image            string
	ForcePull        bool
	ImagePullTimeout time.Duration
	Auth             *authConfig

	// Command replaces the image's CMD's program; Args are its
	// arguments (with no command: the image's CMD is replaced by Args).
	Command    string
	Args       []string
	Entrypoint []string
	WorkDir    string
	Labels     map[string]string

	NetworkMode string
	// Ports are the labels of the group's ports to publish (ports.go).
	Ports []string
	// PortMap is `port_map`: labels to publish too, each to the port in
	// the container it gives (ports.go).
	PortMap    map[string]int
	Volumes    []volumeSpec
	Privileged bool
	CapAdd     []string
	CapDrop    []string
	Ulimits    []*units.Ulimit
	ShmSize    int64
	Init       bool

	// What shapes the container beyond its image and command (see
	// container_keys.go); the plugin config decides which a node allows
	// (policy.go).
	DNSServers       []string
	DNSSearchDomains []string
	DNSOptions       []string
	ExtraHosts       []string
	Hostname         string
	Sysctls          map[string]string
	SecurityOpt      []string
	ReadonlyRootfs   bool
	IPCMode          string
	PIDMode          string
	NetworkAliases   []string
	Devices          []configschema.DockerDevice
	// Mounts are the `mount` blocks, then the `mounts` entries.
	Mounts  []mountSpec
	Logging *loggingConfig
}

// loggingConfig is the `logging` block: the engine's log driver for the
// container.
type loggingConfig struct {
	Type   string
	Config map[string]string
}

// authConfig is the `auth` block: credentials for the image's registry.
type authConfig struct {
	Username      string
	Password      string
	ServerAddress string
}

// mountSpec is one `mount` block or `mounts` entry.
type mountSpec struct {
	configschema.DockerMount
	// what names it in errors: its key and its place there.
	what string
}

// volumeSpec is one `volumes` entry, "source:target[:ro|rw]".
type volumeSpec = configschema.DockerVolume

// parseTaskConfig reads a task's config, which configschema.Docker
// defines.
func parseTaskConfig(raw map[string]any) (*taskConfig, error) {
	r, err := configschema.Docker.Read(raw)
	if err != nil {
		return nil, err
	}
	c := &taskConfig{
		ForcePull:        r.Bool("force_pull"),
		ImagePullTimeout: defaultImagePullTimeout,
		Command:          r.String("command"),
		Args:             r.StringList("args"),
		Entrypoint:       r.StringList("entrypoint"),
		WorkDir:          r.String("work_dir"),
		Labels:           r.StringMap("labels"),
		NetworkMode:      r.String("network_mode"),
		Ports:            r.StringList("ports"),
		Privileged:       r.Bool("privileged"),
		CapAdd:           r.StringList("cap_add"),
		CapDrop:          r.StringList("cap_drop"),
		Init:             r.Bool("init"),
		ShmSize:          int64(r.Int("shm_size")),
	}
	if c.Image, err = configschema.NormalizeImage(r.String("image")); err != nil {
		r.Fail(fmt.Errorf("config key %q: %w", "image", err))
	}
	if r.Has("port_map") {
		if c.PortMap, err = configschema.ParseDockerPortMap(r.StringMap("port_map")); err != nil {
			r.Fail(fmt.Errorf("config key %q: %w", "port_map", err))
		}
	}
	if r.Has("image_pull_timeout") {
		c.ImagePullTimeout = r.Duration("image_pull_timeout")
	}
	if r.Has("auth") {
		a := r.Nested("auth")
		c.Auth = &authConfig{
			Username:      a.String("username"),
			Password:      a.String("password"),
			ServerAddress: a.String("server_address"),
		}
	}
	for _, v := range r.StringList("volumes") {
		spec, err := configschema.ParseDockerVolume(v)
		r.Fail(err)
		c.Volumes = append(c.Volumes, spec)
	}
	readContainerKeys(r, c)
	ulimits := r.StringMap("ulimit")
	for _, name := range sortedKeys(ulimits) {
		u, err := configschema.DockerUlimit(name, ulimits[name])
		r.Fail(err)
		c.Ulimits = append(c.Ulimits, u)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// readContainerKeys reads the keys of configschema's dockerContainerKeys.
func readContainerKeys(r *taskconfig.Reader, c *taskConfig) {
	c.DNSServers = r.StringList("dns_servers")
	c.DNSSearchDomains = r.StringList("dns_search_domains")
	c.DNSOptions = r.StringList("dns_options")
	c.ExtraHosts = r.StringList("extra_hosts")
	c.Hostname = r.String("hostname")
	c.Sysctls = r.StringMap("sysctl")
	c.SecurityOpt = r.StringList("security_opt")
	c.ReadonlyRootfs = r.Bool("readonly_rootfs")
	c.IPCMode = r.String("ipc_mode")
	c.PIDMode = r.String("pid_mode")
	c.NetworkAliases = r.StringList("network_aliases")
	if r.Has("devices") {
		devices, err := configschema.ParseDockerDevices(r.Raw("devices"))
		r.Fail(keyError("devices", err))
		c.Devices = devices
	}
	for _, key := range []string{"mount", "mounts"} {
		if r.Has(key) {
			mounts, err := configschema.ParseDockerMounts(r.Raw(key))
			r.Fail(keyError(key, err))
			for i, m := range mounts {
				c.Mounts = append(c.Mounts, mountSpec{m, fmt.Sprintf("config key %q: entry %d", key, i)})
			}
		}
	}
	if r.Has("logging") {
		l := r.Nested("logging")
		c.Logging = &loggingConfig{Type: l.String("type"), Config: l.StringMap("config")}
		if c.Logging.Type == "" {
			// Nomad's older name for it.
			c.Logging.Type = l.String("driver")
		}
		if c.Logging.Type == "" {
			// The default driver, as in Nomad, with the task's options.
			c.Logging.Type = "json-file"
		}
	}
}

func keyError(key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("config key %q: %w", key, err)
}
