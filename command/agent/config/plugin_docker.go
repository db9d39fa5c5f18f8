package config

import "github.com/drover-io/drover/drivers/docker"

// DockerPluginConfig reads the docker driver's plugin block; without one
// the driver runs with its defaults.
func (c *Config) DockerPluginConfig() (*docker.PluginConfig, error) {
	var raw map[string]any
	if p := c.Plugins[docker.DriverName]; p != nil {
		raw = p.Config
	}
	return docker.ParsePluginConfig(raw)
}
