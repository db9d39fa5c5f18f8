package config

import (
	"testing"

	"github.com/shoenig/test/must"

	execdriver "github.com/drover-io/drover/drivers/exec"
)

func TestExecPluginConfig(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", `
client {
  enabled    = true
  chroot_env = {
    "/bin" = "/bin"
    "/opt/tools" = "/tools"
  }
}

plugin "exec" {
  config {
    default_pid_mode = "host"
    allow_caps       = ["chown", "net_raw"]
  }
}
`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.Eq(t, map[string]string{"/bin": "/bin", "/opt/tools": "/tools"}, cfg.Client.ChrootEnv)
	exec, err := cfg.ExecPluginConfig()
	must.NoError(t, err)
	must.Eq(t, "host", exec.DefaultPIDMode)
	must.Eq(t, "private", exec.DefaultIPCMode)
	must.Eq(t, []string{"chown", "net_raw"}, exec.AllowCaps)
	must.Eq(t, cfg.Client.ChrootEnv, exec.ChrootEnv)

	// Without either, Nomad's defaults.
	exec, err = DefaultConfig().ExecPluginConfig()
	must.NoError(t, err)
	must.Eq(t, execdriver.DefaultChrootEnv, exec.ChrootEnv)

	bad := writeFile(t, dir, "bad.hcl", `
plugin "exec" {
  config {
    default_ipc_mode = "shared"
  }
}
`)
	cfg, err = LoadConfig(DefaultConfig(), bad)
	must.NoError(t, err)
	_, err = cfg.ExecPluginConfig()
	must.ErrorContains(t, err, `plugin "exec": config key "default_ipc_mode": must be "private" or "host", got "shared"`)
}
