package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/internal/drivertest"
	"github.com/drover-io/drover/structs"
)

// exitTimeout bounds waits on real processes on a loaded machine.
const exitTimeout = 60 * time.Second

// requireIsolation skips a test that needs root and cgroups where they
// are missing, except in CI, where it fails: CI runs as root.
func requireIsolation(t *testing.T) {
	t.Helper()
	if why := unusable(&PluginConfig{Enabled: true}); why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("exec driver tests need root and cgroups in CI: %s", why)
		}
		t.Skipf("exec driver tests need root and cgroups: %s", why)
	}
}

func newTestDriver(t *testing.T, plugin *PluginConfig) *Driver {
	t.Helper()
	exe, err := os.Executable()
	must.NoError(t, err)
	if plugin == nil {
		plugin, err = ParsePluginConfig(nil, nil)
		must.NoError(t, err)
	}
	return New(hclog.New(&hclog.LoggerOptions{Output: hclog.DefaultOutput, Level: hclog.Debug}), Config{
		Plugin:        plugin,
		SupervisorCmd: []string{"/usr/bin/env", supervisorTestEnv + "=1", exe},
	})
}

// newShellTask is a task running `/bin/sh -c script` in a fresh alloc
// layout.
func newShellTask(t *testing.T, script string) *drivers.TaskConfig {
	t.Helper()
	allocRoot := t.TempDir()
	cfg := &drivers.TaskConfig{
		ID:         "alloc1/web/" + strings.ReplaceAll(t.Name(), "/", "_"),
		AllocID:    "alloc1",
		Name:       "web",
		Driver:     DriverName,
		Config:     map[string]any{"command": "/bin/sh", "args": []any{"-c", script}},
		Env:        map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin"},
		AllocDir:   filepath.Join(allocRoot, "alloc"),
		TaskDir:    filepath.Join(allocRoot, "web"),
		StdoutPath: filepath.Join(allocRoot, "alloc", "logs", "web.stdout"),
		StderrPath: filepath.Join(allocRoot, "alloc", "logs", "web.stderr"),
		Resources:  &structs.Resources{CPU: 100, MemoryMB: 64},
	}
	for _, dir := range []string{filepath.Dir(cfg.StdoutPath), cfg.TaskDir, filepath.Join(cfg.TaskDir, "local")} {
		must.NoError(t, os.MkdirAll(dir, 0o755))
	}
	return cfg
}

// startTask starts the task and makes sure it is gone at the test's end.
func startTask(t *testing.T, d *Driver, cfg *drivers.TaskConfig) *drivers.TaskHandle {
	t.Helper()
	h, err := d.StartTask(cfg)
	must.NoError(t, err)
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	return h
}

func waitResult(t *testing.T, d *Driver, id string) *drivers.ExitResult {
	t.Helper()
	return drivertest.WaitResult(t, d, id, exitTimeout)
}

// stdout is what the task wrote to its stdout so far.
func stdout(t *testing.T, cfg *drivers.TaskConfig) string {
	t.Helper()
	b, err := os.ReadFile(cfg.StdoutPath + ".0")
	must.NoError(t, err)
	return string(b)
}

func stderr(cfg *drivers.TaskConfig) string {
	b, _ := os.ReadFile(cfg.StderrPath + ".0")
	return string(b)
}
