package config

import execdriver "github.com/drover-io/drover/drivers/exec"

// ExecPluginConfig reads the exec driver's plugin block and the client's
// chroot_env; without them the driver runs with Nomad's defaults.
func (c *Config) ExecPluginConfig() (*execdriver.PluginConfig, error) {
	var raw map[string]any
	if p := c.Plugins[execdriver.DriverName]; p != nil {
		raw = p.Config
	}
	return execdriver.ParsePluginConfig(raw, c.Client.ChrootEnv)
}
