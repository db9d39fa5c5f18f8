package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/structs"
)

// The mock driver is there when its plugin block enables it, and in dev
// mode unless its plugin block disables it.
func TestClientDrivers_Mock(t *testing.T) {
	enabled := func(v bool) map[string]*config.PluginConfig {
		return map[string]*config.PluginConfig{mock.DriverName: {Name: mock.DriverName, Config: map[string]any{"enabled": v}}}
	}
	cases := map[string]struct {
		dev     bool
		plugins map[string]*config.PluginConfig
		want    bool
	}{
		"default":            {},
		"enabled":            {plugins: enabled(true), want: true},
		"dev":                {dev: true, want: true},
		"dev, disabled":      {dev: true, plugins: enabled(false)},
		"not dev, disabled":  {plugins: enabled(false)},
		"dev, enabled again": {dev: true, plugins: enabled(true), want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := config.DefaultConfig()
			cfg.DevMode = tc.dev
			cfg.Plugins = tc.plugins
			a := &Agent{config: cfg, logger: hclog.NewNullLogger()}
			catalog, err := a.clientDrivers(t.TempDir())
			must.NoError(t, err)
			t.Cleanup(catalog.Shutdown)
			_, ok := catalog.Lookup(mock.DriverName)
			must.Eq(t, tc.want, ok)
		})
	}
}

// TestClientDrivers_DockerMountsInTheAllocDir: the docker driver keeps
// the mounts it hands the engine in the client's alloc dir, which no task
// can write, private to the agent.
func TestClientDrivers_DockerMountsInTheAllocDir(t *testing.T) {
	a := &Agent{config: config.DefaultConfig(), logger: hclog.NewNullLogger()}
	allocDir := t.TempDir()
	catalog, err := a.clientDrivers(allocDir)
	must.NoError(t, err)
	t.Cleanup(catalog.Shutdown)
	fi, err := os.Stat(filepath.Join(allocDir, ".docker-mounts"))
	must.NoError(t, err)
	must.Eq(t, os.ModeDir|0o700, fi.Mode())
}

// TestClientDrivers_ExecDriversCanExec: every driver validation lets run
// script checks (structs.ExecDrivers) can run a command in a task (an
// isolated one's inside its isolation: drivers/exec's and drivers/exec2's
// TestExec*_CommandsInTheTask*).
func TestClientDrivers_ExecDriversCanExec(t *testing.T) {
	cfg := config.DefaultConfig()
	cfg.DevMode = true
	a := &Agent{config: cfg, logger: hclog.NewNullLogger()}
	catalog, err := a.clientDrivers(t.TempDir())
	must.NoError(t, err)
	t.Cleanup(catalog.Shutdown)
	for _, name := range structs.ExecDrivers {
		drv, ok := catalog.Lookup(name)
		must.True(t, ok, must.Sprintf("driver %q", name))
		_, ok = drv.(drivers.Execer)
		must.True(t, ok, must.Sprintf("driver %q cannot run commands in its tasks", name))
	}
}
