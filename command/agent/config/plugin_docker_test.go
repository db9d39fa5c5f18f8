package config

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestLoadConfig_DockerPlugin(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", `
data_dir = "/tmp/d"
client { enabled = true }
plugin "docker" {
  config {
    endpoint              = "unix:///run/other/docker.sock"
    allow_privileged      = true
    pull_activity_timeout = "30s"
    allow_sysctls         = ["net.core.*"]
    volumes {
      enabled = true
    }
    gc {
      image       = true
      image_delay = "1m"
      container   = false
    }
  }
}`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.NoError(t, cfg.Validate())
	d, err := cfg.DockerPluginConfig()
	must.NoError(t, err)
	must.Eq(t, "unix:///run/other/docker.sock", d.Endpoint)
	must.True(t, d.AllowPrivileged)
	must.True(t, d.VolumesEnabled)
	must.Eq(t, 30*time.Second, d.PullActivityTimeout)
	must.Eq(t, []string{"net.core.*"}, d.AllowSysctls)
	must.True(t, d.GC.Image)
	must.Eq(t, time.Minute, d.GC.ImageDelay)
	must.False(t, d.GC.Container)
}

func TestLoadConfig_DockerPluginJSON(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.json", `{
  "data_dir": "/tmp/d",
  "client": {"enabled": true},
  "plugin": {"docker": {"config": {"volumes": {"enabled": true}, "gc": {"image_delay": "10s"}}}}
}`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	d, err := cfg.DockerPluginConfig()
	must.NoError(t, err)
	must.True(t, d.VolumesEnabled)
	must.Eq(t, 10*time.Second, d.GC.ImageDelay)
}

// TestValidate_DockerPluginUnsupportedKey refuses, naming it, a key of
// Nomad's docker plugin that Drover does not implement: it would change
// what runs.
func TestValidate_DockerPluginUnsupportedKey(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", `
data_dir = "/tmp/d"
client { enabled = true }
plugin "docker" {
  config {
    infra_image = "registry.k8s.io/pause"
    gc {
      dangling_containers {
        enabled = true
      }
    }
  }
}`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	err = cfg.Validate()
	must.ErrorContains(t, err, `plugin "docker": unsupported config key(s) "infra_image"`)
	must.ErrorContains(t, err, `block "gc": unsupported config key(s) "dangling_containers"`)
}

func TestLoadConfig_PluginBlockWithLabel(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", `
plugin "docker" {
  config {
    gc "x" { image = true }
  }
}`)
	_, err := LoadConfig(DefaultConfig(), path)
	must.ErrorContains(t, err, `block "gc" takes no label`)
}
