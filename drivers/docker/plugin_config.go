package docker

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// Defaults of the plugin configuration, as in Nomad.
const (
	defaultPullActivityTimeout = 2 * time.Minute
	defaultImageGCDelay        = 3 * time.Minute
)

// defaultAllowCaps are the capabilities a task may add with cap_add when
// the plugin block does not say otherwise: the engine's default set.
var defaultAllowCaps = []string{
	"audit_write", "chown", "dac_override", "fowner", "fsetid", "kill", "mknod",
	"net_bind_service", "setfcap", "setgid", "setpcap", "setuid", "sys_chroot",
}

// defaultAllowSysctls are the kernel settings a task may make with sysctl
// when the plugin block does not say otherwise: namespaced ones that
// cannot take from the node or other containers what is not theirs
// (the set Kubernetes calls safe).
var defaultAllowSysctls = []string{
	"kernel.shm_rmid_forced",
	"net.ipv4.ip_local_port_range", "net.ipv4.ip_local_reserved_ports", "net.ipv4.ip_unprivileged_port_start",
	"net.ipv4.ping_group_range", "net.ipv4.tcp_syncookies",
	"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_fin_timeout",
}

// PluginConfig is the agent's configuration of the docker driver, the
// `config` block of `plugin "docker" { ... }` with Nomad's key names.
type PluginConfig struct {
	// Endpoint is the engine's address, such as unix:///var/run/docker.sock
	// or tcp://127.0.0.1:2375; empty means DOCKER_HOST, else the local
	// socket.
	Endpoint string
	// AllowPrivileged lets tasks set privileged = true.
	AllowPrivileged bool
	// VolumesEnabled lets tasks bind host paths outside their allocation
	// directory with `volumes`.
	VolumesEnabled bool
	// AllowCaps are the capabilities (lower case, without "cap_") that
	// cap_add may add; "all" allows any.
	AllowCaps []string
	// AllowSysctls are the kernel settings sysctl may make: names,
	// prefixes ending in ".*", or "all" (Drover's; Nomad has no such
	// limit).
	AllowSysctls []string
	// PullActivityTimeout abandons a pull that made no progress for that
	// long.
	PullActivityTimeout time.Duration
	GC                  GCConfig
	// MountDir is where the driver mounts the allocation paths it hands
	// the engine (see mounter): a directory no task can write, under the
	// client's alloc dir. The agent sets it; it is no key of the plugin
	// block. Empty is a temporary directory of the driver's own.
	MountDir string

	// progressInterval is how often a pull's progress becomes a task
	// event; tests shorten it.
	progressInterval time.Duration
}

// GCConfig says what the driver removes once a task is done with it.
type GCConfig struct {
	// Image removes an image ImageDelay after the last task using it
	// ended, unless another task needs it meanwhile.
	Image      bool
	ImageDelay time.Duration
	// Container removes a task's container when the task is destroyed.
	Container bool
}

// DefaultPluginConfig is the configuration without a plugin block.
func DefaultPluginConfig() *PluginConfig {
	return &PluginConfig{
		AllowCaps:           slices.Clone(defaultAllowCaps),
		AllowSysctls:        slices.Clone(defaultAllowSysctls),
		PullActivityTimeout: defaultPullActivityTimeout,
		GC:                  GCConfig{Image: true, ImageDelay: defaultImageGCDelay, Container: true},
		progressInterval:    defaultProgressInterval,
	}
}

// pluginKeys are the keys of the config block; a key Nomad knows that is
// not here (infra_image, logging, extra_labels, ...) is refused, since it
// would change what runs.
var pluginKeys = []string{
	"endpoint", "allow_privileged", "allow_caps", "allow_sysctls", "volumes", "pull_activity_timeout", "gc",
	// enabled is the agent's own switch, read before the driver is made.
	"enabled",
}

// ParsePluginConfig reads the config block of `plugin "docker"`; nil or
// empty is the default. Every problem is reported, each naming its key.
func ParsePluginConfig(raw map[string]any) (*PluginConfig, error) {
	c := DefaultPluginConfig()
	r := taskconfig.NewReader(raw, pluginKeys...)
	c.Endpoint = r.String("endpoint")
	c.AllowPrivileged = r.Bool("allow_privileged")
	if r.Has("allow_caps") {
		c.AllowCaps = normalizeCaps(r.StringList("allow_caps"))
	}
	if r.Has("allow_sysctls") {
		c.AllowSysctls = r.StringList("allow_sysctls")
	}
	if r.Has("volumes") {
		c.VolumesEnabled = r.Child("volumes", "enabled").Bool("enabled")
	}
	if r.Has("pull_activity_timeout") {
		c.PullActivityTimeout = r.Duration("pull_activity_timeout")
		if c.PullActivityTimeout <= 0 {
			r.Fail(fmt.Errorf(`config key "pull_activity_timeout": must be positive`))
		}
	}
	if r.Has("gc") {
		gc := r.Child("gc", "image", "image_delay", "container")
		if gc.Has("image") {
			c.GC.Image = gc.Bool("image")
		}
		if gc.Has("image_delay") {
			c.GC.ImageDelay = gc.Duration("image_delay")
		}
		if gc.Has("container") {
			c.GC.Container = gc.Bool("container")
		}
	}
	if c.Endpoint != "" && !strings.Contains(c.Endpoint, "://") {
		r.Fail(fmt.Errorf(`config key "endpoint": %q is not an address such as unix:///var/run/docker.sock or tcp://127.0.0.1:2375`, c.Endpoint))
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf(`plugin "docker": %w`, err)
	}
	return c, nil
}

// normalizeCaps lower-cases capability names and drops a "cap_" prefix,
// so that "CAP_NET_ADMIN", "NET_ADMIN" and "net_admin" are one.
func normalizeCaps(caps []string) []string {
	out := make([]string, len(caps))
	for i, c := range caps {
		out[i] = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(c)), "cap_")
	}
	return out
}
