package docker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/client"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/internal/drivertest"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/structs"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dockertest.RemoveTestApp()
	os.Exit(code)
}

// exitTimeout bounds waits on real containers on a loaded machine.
const exitTimeout = time.Minute

// env is what a docker driver test works with: the engine, a registry
// and an image of testapp in it.
type env struct {
	t      *testing.T
	engine *client.Client
	reg    *dockertest.Registry
	image  *dockertest.Image
}

func newEnv(t *testing.T, opts dockertest.ImageOptions) *env {
	t.Helper()
	e := &env{t: t, engine: dockertest.Engine(t), reg: dockertest.NewRegistry(t)}
	e.image = dockertest.PushImage(t, e.reg, opts)
	return e
}

func newTestDriver(t *testing.T, mutate func(*PluginConfig)) *Driver {
	t.Helper()
	cfg := DefaultPluginConfig()
	if mutate != nil {
		mutate(cfg)
	}
	d := New(testLogger(t), cfg)
	t.Cleanup(d.Shutdown)
	return d
}

// testLogger logs to the test's log, shown when it fails or with -v, and
// drops what goroutines log once the test is over.
func testLogger(t *testing.T) hclog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return hclog.New(&hclog.LoggerOptions{Name: "docker", Level: hclog.Debug, Output: w})
}

type testWriter struct {
	t    *testing.T
	mu   sync.Mutex
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

// events collects a task's driver events.
type events struct {
	mu  sync.Mutex
	evs []*drivers.TaskEvent
}

func (e *events) emit(ev *drivers.TaskEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.evs = append(e.evs, ev)
}

func (e *events) all() []*drivers.TaskEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*drivers.TaskEvent(nil), e.evs...)
}

// newTaskConfig is a task of image running testapp with args, in a fresh
// allocation layout, labelled for clean-up.
func newTaskConfig(t *testing.T, image string, args ...string) (*drivers.TaskConfig, *events) {
	t.Helper()
	root := t.TempDir()
	allocID := structs.GenerateUUID()
	cfg := &drivers.TaskConfig{
		ID:            allocID + "/web/" + structs.GenerateUUID()[:8],
		AllocID:       allocID,
		Name:          "web",
		JobName:       "job",
		TaskGroupName: "group",
		Namespace:     "default",
		Driver:        DriverName,
		Config: map[string]any{
			"image":  image,
			"args":   toAny(args),
			"labels": map[string]any{dockertest.TestLabel: "1"},
		},
		Env:        map[string]string{"GREETING": "hi", "NOMAD_ALLOC_DIR": filepath.Join(root, "alloc"), "NOMAD_TASK_DIR": filepath.Join(root, "web", "local")},
		AllocDir:   filepath.Join(root, "alloc"),
		TaskDir:    filepath.Join(root, "web"),
		StdoutPath: filepath.Join(root, "alloc", "logs", "web.stdout"),
		StderrPath: filepath.Join(root, "alloc", "logs", "web.stderr"),
		Resources:  &structs.Resources{CPU: 100, MemoryMB: 64},
	}
	for _, dir := range []string{filepath.Dir(cfg.StdoutPath), filepath.Join(cfg.TaskDir, "local"), filepath.Join(cfg.TaskDir, "secrets")} {
		must.NoError(t, os.MkdirAll(dir, 0o755))
	}
	evs := &events{}
	cfg.EmitEvent = evs.emit
	return cfg, evs
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// startTask starts the task and removes its container when the test
// ends.
func startTask(t *testing.T, d *Driver, cfg *drivers.TaskConfig) *drivers.TaskHandle {
	t.Helper()
	h, err := d.StartTask(cfg)
	must.NoError(t, err)
	t.Cleanup(func() { removeTaskContainer(t, cfg) })
	return h
}

// removeTaskContainer removes the run's container, if any is left.
func removeTaskContainer(t *testing.T, cfg *drivers.TaskConfig) {
	c := dockertest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = c.ContainerRemove(ctx, containerName(cfg), client.ContainerRemoveOptions{Force: true})
}

// waitResult waits for the task's exit result.
func waitResult(t *testing.T, d *Driver, id string) *drivers.ExitResult {
	t.Helper()
	return drivertest.WaitResult(t, d, id, exitTimeout)
}

func readLog(t *testing.T, base string) string {
	t.Helper()
	b, err := os.ReadFile(base + ".0")
	if os.IsNotExist(err) {
		return ""
	}
	must.NoError(t, err)
	return string(b)
}

// containerExists reports whether the engine has a container of the name.
func containerExists(t *testing.T, c *client.Client, name string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
	return err == nil
}
