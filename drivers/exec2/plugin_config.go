package exec2

import (
	"fmt"

	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// PluginConfig is the exec2 plugin block, with the keys of Nomad's.
type PluginConfig struct {
	// Enabled is false only where the plugin block says so.
	Enabled bool
	// UnveilDefaults grants every task the system paths of
	// defaultUnveil: programs, shared libraries, certificates, DNS files.
	UnveilDefaults bool
	// UnveilPaths are granted to every task.
	UnveilPaths []configschema.Unveil
	// UnveilByTask lets a task's config unveil paths of its own.
	UnveilByTask bool
}

var pluginKeys = []string{"enabled", "unveil_defaults", "unveil_paths", "unveil_by_task"}

// ParsePluginConfig reads the plugin block's config (nil: none): the
// defaults unveiled, nothing else, tasks unveiling nothing.
func ParsePluginConfig(raw map[string]any) (*PluginConfig, error) {
	c := &PluginConfig{Enabled: true, UnveilDefaults: true}
	r := taskconfig.NewReader(raw, pluginKeys...)
	if r.Has("enabled") {
		c.Enabled = r.Bool("enabled")
	}
	if r.Has("unveil_defaults") {
		c.UnveilDefaults = r.Bool("unveil_defaults")
	}
	if r.Has("unveil_by_task") {
		c.UnveilByTask = r.Bool("unveil_by_task")
	}
	for i, s := range r.StringList("unveil_paths") {
		u, err := configschema.ParseUnveil(s)
		if err != nil {
			r.Fail(fmt.Errorf(`config key "unveil_paths": entry %d: %w`, i, err))
			continue
		}
		c.UnveilPaths = append(c.UnveilPaths, u)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf(`plugin "exec2": %w`, err)
	}
	return c, nil
}
