package config

import (
	"errors"

	"github.com/drover-io/drover/drivers/exec2"
)

// exec2PluginNames are the names an exec2 plugin block may have: the
// driver's, and that of Nomad's plugin binary, which Nomad's agent
// configurations use.
var exec2PluginNames = []string{exec2.DriverName, "nomad-driver-exec2"}

// Exec2PluginBlock is the name of the agent's exec2 plugin block, or ""
// where it has none.
func (c *Config) Exec2PluginBlock() string {
	for _, name := range exec2PluginNames {
		if c.Plugins[name] != nil {
			return name
		}
	}
	return ""
}

// Exec2PluginConfig reads the exec2 plugin block, under either name.
func (c *Config) Exec2PluginConfig() (*exec2.PluginConfig, error) {
	if c.Plugins[exec2PluginNames[0]] != nil && c.Plugins[exec2PluginNames[1]] != nil {
		return nil, errors.New(`plugin "exec2" and plugin "nomad-driver-exec2" configure the same driver: keep one`)
	}
	var raw map[string]any
	if p := c.Plugins[c.Exec2PluginBlock()]; p != nil {
		raw = p.Config
	}
	return exec2.ParsePluginConfig(raw)
}
