package config

import (
	execdriver "github.com/drover-io/drover/drivers/exec"
	"github.com/drover-io/drover/drivers/java"
)

// JavaPluginConfig reads the java plugin block, whose keys are exec's
// (Nomad's java driver takes the same), with the client's chroot_env.
func (c *Config) JavaPluginConfig() (*execdriver.PluginConfig, error) {
	var raw map[string]any
	if p := c.Plugins[java.DriverName]; p != nil {
		raw = p.Config
	}
	return execdriver.ParseNamedPluginConfig(java.DriverName, raw, c.Client.ChrootEnv)
}
