package exec

import (
	"fmt"
	"maps"
	"slices"

	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// Namespace modes of pid_mode and ipc_mode.
const (
	modePrivate = "private"
	modeHost    = "host"
)

// DefaultChrootEnv is the host paths bound into a task's root, at the
// same places, when the client's chroot_env gives none: Nomad's default.
var DefaultChrootEnv = map[string]string{
	"/bin":            "/bin",
	"/etc":            "/etc",
	"/lib":            "/lib",
	"/lib32":          "/lib32",
	"/lib64":          "/lib64",
	"/run/resolvconf": "/run/resolvconf",
	"/sbin":           "/sbin",
	"/usr":            "/usr",
}

// PluginConfig is the exec plugin block with the client's chroot_env.
type PluginConfig struct {
	// Enabled is false only where the plugin block says so.
	Enabled bool
	// DefaultPIDMode and DefaultIPCMode are used for tasks that set no
	// pid_mode or ipc_mode: "private" (the default) or "host", which
	// also allows tasks to ask for "host".
	DefaultPIDMode string
	DefaultIPCMode string
	// AllowCaps are the capabilities tasks may hold, by cap_add.
	AllowCaps []string
	// ChrootEnv maps host paths to their places in a task's root.
	ChrootEnv map[string]string
}

var pluginKeys = []string{"enabled", "default_pid_mode", "default_ipc_mode", "allow_caps", "no_pivot_root"}

// ParsePluginConfig reads the exec plugin block's config (nil: none) and
// the client's chroot_env (nil or empty: DefaultChrootEnv).
func ParsePluginConfig(raw map[string]any, chrootEnv map[string]string) (*PluginConfig, error) {
	return ParseNamedPluginConfig(DriverName, raw, chrootEnv)
}

// ParseNamedPluginConfig reads the plugin block of a driver built on this
// one (java), whose keys are exec's; its errors name the block.
func ParseNamedPluginConfig(name string, raw map[string]any, chrootEnv map[string]string) (*PluginConfig, error) {
	c := &PluginConfig{
		Enabled:        true,
		DefaultPIDMode: modePrivate,
		DefaultIPCMode: modePrivate,
		AllowCaps:      slices.Clone(isolate.DefaultCaps),
		ChrootEnv:      maps.Clone(DefaultChrootEnv),
	}
	if len(chrootEnv) > 0 {
		c.ChrootEnv = maps.Clone(chrootEnv)
	}
	r := taskconfig.NewReader(raw, pluginKeys...)
	if r.Has("enabled") {
		c.Enabled = r.Bool("enabled")
	}
	for key, mode := range map[string]*string{"default_pid_mode": &c.DefaultPIDMode, "default_ipc_mode": &c.DefaultIPCMode} {
		if !r.Has(key) {
			continue
		}
		*mode = r.String(key)
		if *mode != modePrivate && *mode != modeHost {
			r.Fail(fmt.Errorf(`config key %q: must be "private" or "host", got %q`, key, *mode))
		}
	}
	if r.Has("allow_caps") {
		c.AllowCaps = nil
		for _, name := range r.StringList("allow_caps") {
			n, err := isolate.NormalizeCap(name)
			if err != nil {
				r.Fail(fmt.Errorf(`config key "allow_caps": %w`, err))
				continue
			}
			c.AllowCaps = append(c.AllowCaps, n)
		}
	}
	if r.Has("no_pivot_root") && r.Bool("no_pivot_root") {
		r.Fail(fmt.Errorf(`config key "no_pivot_root": Drover's exec driver always pivots into the task's root`))
	}
	for src, dest := range c.ChrootEnv {
		if !isAbs(src) || !isAbs(dest) {
			r.Fail(fmt.Errorf("chroot_env %q = %q: both paths must be absolute", src, dest))
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("plugin %q: %w", name, err)
	}
	return c, nil
}

func isAbs(p string) bool { return len(p) > 0 && p[0] == '/' }
