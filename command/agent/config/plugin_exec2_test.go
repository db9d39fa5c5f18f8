package config

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestExec2PluginConfig(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", `
client { enabled = true }

plugin "nomad-driver-exec2" {
  config {
    unveil_defaults = false
    unveil_by_task  = true
    unveil_paths    = ["rx:/opt/bin"]
  }
}
`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.Eq(t, "nomad-driver-exec2", cfg.Exec2PluginBlock())
	p, err := cfg.Exec2PluginConfig()
	must.NoError(t, err)
	must.False(t, p.UnveilDefaults)
	must.True(t, p.UnveilByTask)
	must.Eq(t, "/opt/bin", p.UnveilPaths[0].Path)

	path = writeFile(t, dir, "bad.hcl", `
client { enabled = true }
plugin "exec2" {
  config { unveil_paths = ["/opt/bin"] }
}
`)
	cfg, err = LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.ErrorContains(t, cfg.Validate(), `plugin "exec2": config key "unveil_paths": entry 0`)
}

func TestJavaPluginConfig(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", `
client { enabled = true }
plugin "java" {
  config { default_pid_mode = "host" }
}
`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	p, err := cfg.JavaPluginConfig()
	must.NoError(t, err)
	must.Eq(t, "host", p.DefaultPIDMode)

	path = writeFile(t, dir, "bad.hcl", `
client { enabled = true }
plugin "java" {
  config { default_pid_mode = "shared" }
}
`)
	cfg, err = LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.ErrorContains(t, cfg.Validate(), `plugin "java": config key "default_pid_mode"`)
}
