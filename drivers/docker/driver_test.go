package docker

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/internal/waitfor"
)

func TestDriver_Fingerprint(t *testing.T) {
	t.Parallel()
	dockertest.Engine(t)
	fp := newTestDriver(t, nil).Fingerprint(context.Background())
	must.True(t, fp.Detected)
	must.True(t, fp.Healthy)
	must.Eq(t, "1", fp.Attributes["driver.docker"])
	must.StrHasPrefix(t, "20.", fp.Attributes["driver.docker.version"])
	must.Eq(t, "1.41", fp.Attributes["driver.docker.api_version"])
	must.Eq(t, "false", fp.Attributes["driver.docker.privileged.enabled"])
}

func TestDriver_Fingerprint_NoEngine(t *testing.T) {
	t.Parallel()
	d := newTestDriver(t, func(c *PluginConfig) {
		c.Endpoint = "unix://" + filepath.Join(t.TempDir(), "no-engine.sock")
	})
	fp := d.Fingerprint(context.Background())
	must.False(t, fp.Detected)
	must.False(t, fp.Healthy)
	must.MapEmpty(t, fp.Attributes)
	must.StrContains(t, fp.HealthDescription, "Failed to connect to the Docker engine")
}

// TestDriver_Fingerprint_NoMountDir: an engine that answers is no use
// when the driver cannot mount a task's directories for it: the driver
// says so, and is not healthy.
func TestDriver_Fingerprint_NoMountDir(t *testing.T) {
	t.Parallel()
	dockertest.Engine(t)
	file := filepath.Join(t.TempDir(), "file")
	must.NoError(t, os.WriteFile(file, nil, 0o644))
	d := newTestDriver(t, func(c *PluginConfig) { c.MountDir = filepath.Join(file, "mounts") })
	fp := d.Fingerprint(context.Background())
	must.True(t, fp.Detected)
	must.False(t, fp.Healthy)
	must.StrContains(t, fp.HealthDescription, "create the directory for container mounts")

	cfg, _ := newTaskConfig(t, "busybox")
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, "create the directory for container mounts")
}

// TestDriver_RunsTask runs a container to its end: its exit code and
// exit time, its output in the allocation's log files, its environment
// and the allocation's directories mounted where Nomad mounts them.
func TestDriver_RunsTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref,
		"print", "to stdout", "eprint", "to stderr", "env",
		"write", "/alloc/shared.txt", "from alloc",
		"write", "/local/local.txt", "from local",
		"write", "/secrets/secret.txt", "from secrets",
		"exit", "3")
	before := time.Now()
	h := startTask(t, d, cfg)
	must.Eq(t, DriverName, h.Driver)
	var st driverState
	must.NoError(t, h.GetDriverState(&st))
	must.StrHasPrefix(t, "sha256:", st.ImageID)
	must.NotEq(t, "", st.ContainerID)

	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 3, res.ExitCode)
	must.NoError(t, res.Err)
	must.False(t, res.OOMKilled)
	must.True(t, res.ExitedAt.After(before), must.Sprintf("exited at %s, started after %s", res.ExitedAt, before))

	stdout := readLog(t, cfg.StdoutPath)
	must.StrHasPrefix(t, "to stdout\n", stdout)
	must.StrContains(t, stdout, "\nGREETING=hi\n")
	must.StrContains(t, stdout, "\nNOMAD_ALLOC_DIR=/alloc\n")
	must.StrContains(t, stdout, "\nNOMAD_TASK_DIR=/local\n")
	must.Eq(t, "to stderr\n", readLog(t, cfg.StderrPath))
	for path, want := range map[string]string{
		filepath.Join(cfg.AllocDir, "shared.txt"):           "from alloc",
		filepath.Join(cfg.TaskDir, "local", "local.txt"):    "from local",
		filepath.Join(cfg.TaskDir, "secrets", "secret.txt"): "from secrets",
	} {
		b, err := os.ReadFile(path)
		must.NoError(t, err)
		must.Eq(t, want, string(b))
	}

	must.NoError(t, d.DestroyTask(cfg.ID, false))
	must.False(t, containerExists(t, e.engine, containerName(cfg)))
	_, err := d.InspectTask(cfg.ID)
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)
}

// TestDriver_ResourceLimits checks that the task's resources are the
// container's limits, and that a task over its memory is OOM-killed and
// reported so.
func TestDriver_ResourceLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)

	cfg, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	cfg.Resources.CPU, cfg.Resources.MemoryMB, cfg.Resources.MemoryMaxMB = 250, 32, 48
	startTask(t, d, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	insp, err := e.engine.ContainerInspect(ctx, containerName(cfg), client.ContainerInspectOptions{})
	must.NoError(t, err)
	hc := insp.Container.HostConfig
	must.Eq(t, int64(48<<20), hc.Memory)
	must.Eq(t, int64(32<<20), hc.MemoryReservation)
	must.Eq(t, int64(48<<20), hc.MemorySwap)
	must.Eq(t, int64(250), hc.CPUShares)
	must.NoError(t, d.StopTask(cfg.ID, time.Second, "SIGKILL"))

	oom, _ := newTaskConfig(t, e.image.Ref, "alloc", "64", "sleep", "100s")
	oom.Resources.MemoryMB = 16
	startTask(t, d, oom)
	res := waitResult(t, d, oom.ID)
	must.True(t, res.OOMKilled, must.Sprintf("result %+v", res))
	must.Eq(t, 137, res.ExitCode)
}

// TestDriver_StopTask stops with the task's signal, and kills a task
// that ignores it once the timeout has passed.
func TestDriver_StopTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)

	trapping, _ := newTaskConfig(t, e.image.Ref, "trap", "SIGUSR1", "7", "print", "ready", "sleep", "100s")
	startTask(t, d, trapping)
	waitForLog(t, trapping.StdoutPath, "ready\n")
	must.NoError(t, d.StopTask(trapping.ID, 30*time.Second, "SIGUSR1"))
	res := waitResult(t, d, trapping.ID)
	must.Eq(t, 7, res.ExitCode)
	must.StrContains(t, readLog(t, trapping.StdoutPath), "trapped SIGUSR1")

	stubborn, _ := newTaskConfig(t, e.image.Ref, "ignore", "SIGTERM", "print", "ready", "sleep", "100s")
	startTask(t, d, stubborn)
	waitForLog(t, stubborn.StdoutPath, "ready\n")
	start := time.Now()
	must.NoError(t, d.StopTask(stubborn.ID, time.Second, "SIGTERM"))
	took := time.Since(start)
	must.Greater(t, time.Second, took)
	res = waitResult(t, d, stubborn.ID)
	must.Eq(t, 137, res.ExitCode)
	must.StrContains(t, readLog(t, stubborn.StdoutPath), "ignored SIGTERM")
}

func TestDriver_SignalTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "trap", "SIGHUP", "4", "print", "ready", "sleep", "100s")
	startTask(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready\n")
	must.NoError(t, d.SignalTask(cfg.ID, "SIGHUP"))
	must.Eq(t, 4, waitResult(t, d, cfg.ID).ExitCode)
	must.ErrorContains(t, d.SignalTask(cfg.ID, "SIGHUP"), "not running")
}

func TestDriver_InspectTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	startTask(t, d, cfg)
	st, err := d.InspectTask(cfg.ID)
	must.NoError(t, err)
	must.Eq(t, drivers.TaskStateRunning, st.State)
	must.Eq(t, e.image.Ref, st.DriverAttributes["image"])
	pid := st.DriverAttributes["pid"]
	must.NotEq(t, "", pid)
	// The client reads a task's processes by its process group.
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	must.NoError(t, err)
	must.Eq(t, pid, strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))[2])

	must.NoError(t, d.StopTask(cfg.ID, time.Second, "SIGKILL"))
	st, err = d.InspectTask(cfg.ID)
	must.NoError(t, err)
	must.Eq(t, drivers.TaskStateExited, st.State)
}

func TestDriver_DestroyRunningTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "sleep", "100s")
	startTask(t, d, cfg)
	must.ErrorContains(t, d.DestroyTask(cfg.ID, false), "still running")
	must.NoError(t, d.DestroyTask(cfg.ID, true))
	must.False(t, containerExists(t, e.engine, containerName(cfg)))
}

func TestDriver_GCKeepsContainer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, func(c *PluginConfig) { c.GC.Container = false })
	cfg, _ := newTaskConfig(t, e.image.Ref, "exit", "0")
	startTask(t, d, cfg)
	waitResult(t, d, cfg.ID)
	must.NoError(t, d.DestroyTask(cfg.ID, false))
	must.True(t, containerExists(t, e.engine, containerName(cfg)))
}

// waitForLog waits until the log holds want.
func waitForLog(t *testing.T, base, want string) {
	t.Helper()
	waitfor.True(t, "log "+filepath.Base(base)+" to hold "+strconv.Quote(want), func() bool {
		return strings.Contains(readLog(t, base), want)
	})
}

// TestDriver_TaskStats reads a container's memory and CPU from the
// engine.
func TestDriver_TaskStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "alloc", "24", "print", "ready", "sleep", "100s")
	startTask(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready\n")
	u, err := d.TaskStats(context.Background(), cfg.ID)
	must.NoError(t, err)
	must.GreaterEq(t, uint64(24<<20), u.MemoryRSS)
	must.GreaterEq(t, u.MemoryRSS, u.MemoryUsage)
	must.GreaterEq(t, u.MemoryUsage, u.MemoryMaxUsage)
	must.Positive(t, u.CPUUser+u.CPUSystem)
	must.False(t, u.Timestamp.IsZero())

	must.NoError(t, d.StopTask(cfg.ID, time.Second, "SIGKILL"))
	_, err = d.TaskStats(context.Background(), cfg.ID)
	must.ErrorContains(t, err, "not running")
}

// TestDriver_EngineTakesEveryOption starts a container with every task
// option the engine applies, and checks that the engine did.
func TestDriver_EngineTakesEveryOption(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref)
	must.NoError(t, os.MkdirAll(filepath.Join(cfg.TaskDir, "data"), 0o755))
	cfg.Config["entrypoint"] = []any{"/testapp"}
	cfg.Config["args"] = []any{"write", "data.txt", "in work_dir", "cat", "/data/data.txt"}
	cfg.Config["work_dir"] = "/data"
	cfg.Config["volumes"] = []any{"data:/data"}
	cfg.Config["network_mode"] = "none"
	cfg.Config["cap_drop"] = []any{"ALL"}
	cfg.Config["cap_add"] = []any{"chown"}
	cfg.Config["ulimit"] = map[string]any{"nofile": "256:512"}
	cfg.Config["shm_size"] = 8 << 20
	cfg.Config["init"] = true
	cfg.Config["auth"] = map[string]any{"username": "u", "password": "p"}
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprintf("stderr: %s", readLog(t, cfg.StderrPath)))
	must.Eq(t, "in work_dir", readLog(t, cfg.StdoutPath))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	insp, err := e.engine.ContainerInspect(ctx, containerName(cfg), client.ContainerInspectOptions{})
	must.NoError(t, err)
	hc := insp.Container.HostConfig
	must.Eq(t, "none", string(hc.NetworkMode))
	must.Eq(t, []string{"ALL"}, hc.CapDrop)
	must.Eq(t, []string{"CAP_CHOWN"}, hc.CapAdd)
	must.Eq(t, int64(8<<20), hc.ShmSize)
	must.True(t, *hc.Init)
	must.SliceLen(t, 1, hc.Ulimits)
	must.Eq(t, int64(512), hc.Ulimits[0].Hard)
	must.Eq(t, "/data", insp.Container.Config.WorkingDir)
}
