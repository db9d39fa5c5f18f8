package exec2

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/internal/drivertest"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// exitTimeout bounds waits on real processes on a loaded machine.
const exitTimeout = 60 * time.Second

// requireLandlock skips a test where tasks cannot be confined (not root,
// no cgroups, no Landlock), except in CI, which has them.
func requireLandlock(t *testing.T) {
	t.Helper()
	if why := unusable(&PluginConfig{Enabled: true}); why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("exec2 tests need root, cgroups and Landlock in CI: %s", why)
		}
		t.Skipf("exec2 tests need root, cgroups and Landlock: %s", why)
	}
}

func newTestDriver(t *testing.T, plugin *PluginConfig) *Driver {
	t.Helper()
	exe, err := os.Executable()
	must.NoError(t, err)
	if plugin == nil {
		plugin, err = ParsePluginConfig(nil)
		must.NoError(t, err)
	}
	return New(hclog.New(&hclog.LoggerOptions{Output: hclog.DefaultOutput, Level: hclog.Debug}), Config{
		Plugin:        plugin,
		SupervisorCmd: []string{"/usr/bin/env", supervisorTestEnv + "=1", exe},
	})
}

// hostSecret is a file outside /tmp (which the defaults unveil), in a
// directory the test removes.
func hostSecret(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	must.NoError(t, err)
	dir, err := os.MkdirTemp(wd, "exec2-secret-")
	must.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := filepath.Join(dir, "secret")
	must.NoError(t, os.WriteFile(p, []byte("host secret\n"), 0o644))
	return p
}

// taskSeq tells apart the tasks of one test.
var taskSeq int

func newShellTask(t *testing.T, script string, extra map[string]any) *drivers.TaskConfig {
	t.Helper()
	allocRoot := t.TempDir()
	taskSeq++
	config := map[string]any{"command": "/bin/sh", "args": []any{"-c", script}}
	for k, v := range extra {
		config[k] = v
	}
	cfg := &drivers.TaskConfig{
		ID:         fmt.Sprintf("alloc1/web/%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), taskSeq),
		AllocID:    "alloc1",
		Name:       "web",
		Driver:     DriverName,
		Config:     config,
		AllocDir:   filepath.Join(allocRoot, "alloc"),
		TaskDir:    filepath.Join(allocRoot, "web"),
		StdoutPath: filepath.Join(allocRoot, "alloc", "logs", "web.stdout"),
		StderrPath: filepath.Join(allocRoot, "alloc", "logs", "web.stderr"),
		Resources:  &structs.Resources{CPU: 100, MemoryMB: 64},
	}
	cfg.Env = map[string]string{
		"PATH":            "/usr/local/bin:/usr/bin:/bin",
		"NOMAD_TASK_DIR":  filepath.Join(cfg.TaskDir, "local"),
		"NOMAD_ALLOC_DIR": cfg.AllocDir,
	}
	for _, dir := range []string{filepath.Dir(cfg.StdoutPath), filepath.Join(cfg.TaskDir, "local")} {
		must.NoError(t, os.MkdirAll(dir, 0o755))
	}
	return cfg
}

func startTask(t *testing.T, d *Driver, cfg *drivers.TaskConfig) {
	t.Helper()
	_, err := d.StartTask(cfg)
	must.NoError(t, err)
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
}

func output(cfg *drivers.TaskConfig, which string) string {
	b, _ := os.ReadFile(map[string]string{"stdout": cfg.StdoutPath, "stderr": cfg.StderrPath}[which] + ".0")
	return string(b)
}

func runToEnd(t *testing.T, d *Driver, cfg *drivers.TaskConfig) string {
	t.Helper()
	startTask(t, d, cfg)
	res := drivertest.WaitResult(t, d, cfg.ID, exitTimeout)
	must.Eq(t, 0, res.ExitCode, must.Sprint(output(cfg, "stderr")))
	return output(cfg, "stdout")
}

func TestExec2_Fingerprint(t *testing.T) {
	requireLandlock(t)
	fp := newTestDriver(t, nil).Fingerprint(context.Background())
	must.True(t, fp.Detected && fp.Healthy, must.Sprint(fp.HealthDescription))
	must.Eq(t, "1", fp.Attributes["driver.exec2"])
	must.Eq(t, "true", fp.Attributes["driver.exec2.unveil.defaults"])
	must.Eq(t, "false", fp.Attributes["driver.exec2.unveil.tasks"])

	fp = newTestDriver(t, &PluginConfig{}).Fingerprint(context.Background())
	must.False(t, fp.Detected)
	must.Eq(t, "disabled", fp.HealthDescription)
}

// TestExec2_ConfinedToItsUnveiledPaths: the task reads and writes its
// own directories and reads the system's, and reaches nothing else of
// the host's file system, though it sees it and runs as root.
func TestExec2_ConfinedToItsUnveiledPaths(t *testing.T) {
	requireLandlock(t)
	secret := hostSecret(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, fmt.Sprintf(`
id -u
cat %[1]s && echo READ-SECRET
ls %[2]s && echo LISTED-SECRET-DIR
test -e %[1]s && echo SECRET-EXISTS
touch /etc/drover-exec2 && echo WROTE-ETC
touch /usr/drover-exec2 && echo WROTE-USR
touch /tmp/drover-exec2-$$ && echo WROTE-TMP
ls /root && echo LISTED-ROOT
ls .supervisor 2>/dev/null | wc -l
echo task > "$NOMAD_TASK_DIR/out" && cat "$NOMAD_TASK_DIR/out"
echo alloc > "$NOMAD_ALLOC_DIR/out" && cat "$NOMAD_ALLOC_DIR/out"
head -c 4 /dev/urandom | wc -c
grep -c . /etc/hostname
pwd
true`, secret, filepath.Dir(secret)), nil)
	out := runToEnd(t, d, cfg)
	t.Logf("stdout:\n%s\nstderr:\n%s", out, output(cfg, "stderr"))
	must.StrHasPrefix(t, "0\n", out)
	for _, denied := range []string{"READ-SECRET", "LISTED-SECRET-DIR", "WROTE-ETC", "WROTE-USR", "LISTED-ROOT"} {
		must.StrNotContains(t, out, denied)
	}
	// Landlock hides what a file holds, not that it exists.
	must.StrContains(t, out, "SECRET-EXISTS")
	// The tests' allocations are under /tmp: the default "rwc:/tmp" would
	// reach them all, and is left out.
	must.StrNotContains(t, out, "WROTE-TMP")
	must.StrContains(t, out, "task\nalloc\n4\n1\n"+cfg.TaskDir+"\n")
	_, err := os.Stat("/etc/drover-exec2")
	must.ErrorIs(t, err, os.ErrNotExist)
	must.StrContains(t, output(cfg, "stderr"), "Permission denied")
}

func TestExec2_TaskUnveilOnlyWhereAllowed(t *testing.T) {
	requireLandlock(t)
	secret := hostSecret(t)
	unveil := map[string]any{"unveil": []any{"r:" + filepath.Dir(secret)}}

	cfg := newShellTask(t, "cat "+secret, unveil)
	_, err := newTestDriver(t, nil).StartTask(cfg)
	must.ErrorContains(t, err, `config key "unveil": this client does not let tasks unveil paths (its exec2 plugin config's unveil_by_task is false)`)

	d := newTestDriver(t, &PluginConfig{Enabled: true, UnveilDefaults: true, UnveilByTask: true})
	cfg = newShellTask(t, "cat "+secret+"; touch "+secret+".new || echo NO-CREATE", unveil)
	must.Eq(t, "host secret\nNO-CREATE\n", runToEnd(t, d, cfg))

	// Nor may it reach the client's allocation directories, other
	// tasks' among them, whether it names them or a directory above.
	cfg = newShellTask(t, "true", nil)
	clientAllocs := filepath.Dir(filepath.Dir(cfg.TaskDir))
	for _, p := range []string{clientAllocs, filepath.Dir(clientAllocs)} {
		cfg = newShellTask(t, "true", map[string]any{"unveil": []any{"r:" + p}})
		_, err = d.StartTask(cfg)
		must.ErrorContains(t, err, "would reach the client's allocation directories")
	}

	// A path the job names must exist.
	cfg = newShellTask(t, "true", map[string]any{"unveil": []any{"r:/no/such/dir"}})
	_, err = d.StartTask(cfg)
	must.ErrorContains(t, err, "unveil /no/such/dir")
}

// TestExec2_WithoutDefaultsNothingRuns: with unveil_defaults off and no
// paths, even the shell cannot be executed; the start fails saying so.
func TestExec2_WithoutDefaultsNothingRuns(t *testing.T) {
	requireLandlock(t)
	d := newTestDriver(t, &PluginConfig{Enabled: true})
	_, err := d.StartTask(newShellTask(t, "true", nil))
	must.ErrorContains(t, err, "the task may not execute it")
}

func TestExec2_SeesOnlyItsOwnProcesses(t *testing.T) {
	requireLandlock(t)
	d := newTestDriver(t, nil)
	// The shell is PID 1, and this test's process is none of its
	// namespace's.
	out := runToEnd(t, d, newShellTask(t, fmt.Sprintf(`echo $$; kill -0 %d 2>/dev/null && echo SEES-HOST; true`, os.Getpid()), nil))
	must.Eq(t, "1\n", out)
}

// TestExec2_StopKillsTheWholeTree: a stop, as max_run_duration makes one,
// kills the task and what it forked, through its cgroup.
func TestExec2_StopKillsTheWholeTree(t *testing.T) {
	requireLandlock(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `setsid sleep 1000 & (trap '' INT TERM; sleep 1000) & echo started; wait`, nil)
	startTask(t, d, cfg)
	waitfor.True(t, "the task to start", func() bool { return strings.Contains(output(cfg, "stdout"), "started") }, wait.Timeout(exitTimeout))
	must.NoError(t, d.StopTask(cfg.ID, 2*time.Second, "SIGINT"))
	res := drivertest.WaitResult(t, d, cfg.ID, exitTimeout)
	must.NonZero(t, res.Signal+res.ExitCode)
}
