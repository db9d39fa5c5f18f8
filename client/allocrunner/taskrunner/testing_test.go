package taskrunner

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/structs"
)

// testTask is a mock task with the given config, no restarts, and a 5s
// kill_timeout.
func testTask(name string, config map[string]any) *structs.Task {
	return tasktest.Task(name, mock.DriverName, config)
}

func testAlloc(jobType string, tasks ...*structs.Task) *structs.Allocation {
	return &structs.Allocation{
		ID:        structs.GenerateUUID(),
		Namespace: "default",
		Name:      "example.web[2]",
		JobID:     "example",
		TaskGroup: "web",
		Job: &structs.Job{
			ID:         "example",
			Name:       "example",
			Region:     "global",
			Type:       jobType,
			Meta:       map[string]string{"owner": "ops"},
			TaskGroups: []*structs.TaskGroup{{Name: "web", Tasks: tasks, Meta: map[string]string{"tier": "front"}}},
		},
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusPending,
		CreateTime:    time.Now().UnixNano(),
	}
}

// harness is one task runner over a mock driver and an in-memory state DB.
type harness struct {
	t       *testing.T
	alloc   *structs.Allocation
	task    *structs.Task
	driver  *mock.Driver
	catalog *drivers.Catalog
	db      state.StateDB
	taskDir *allocdir.TaskDir
	updates *countingUpdater
	tr      *TaskRunner
}

type countingUpdater struct{ n atomic.Int64 }

func (u *countingUpdater) TaskStateUpdated() { u.n.Add(1) }

type harnessOpt func(*Config)

func withGate(gate <-chan struct{}) harnessOpt {
	return func(c *Config) { c.StartGate = gate }
}

func withNode(n *structs.Node) harnessOpt {
	return func(c *Config) { c.Node = n }
}

func withDrivers(c *drivers.Catalog) harnessOpt {
	return func(cfg *Config) { cfg.Drivers = c }
}

// recordingDriver is a mock driver that records the configs it was asked
// to start.
type recordingDriver struct {
	*mock.Driver
	mu      sync.Mutex
	started []*drivers.TaskConfig
}

func (d *recordingDriver) StartTask(cfg *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	d.mu.Lock()
	d.started = append(d.started, cfg)
	d.mu.Unlock()
	return d.Driver.StartTask(cfg)
}

func (d *recordingDriver) lastStarted(t *testing.T) *drivers.TaskConfig {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	must.SliceNotEmpty(t, d.started)
	return d.started[len(d.started)-1]
}

func newHarness(t *testing.T, alloc *structs.Allocation, opts ...harnessOpt) *harness {
	t.Helper()
	ad, err := allocdir.New(t.TempDir(), alloc.ID)
	must.NoError(t, err)
	must.NoError(t, ad.Build())
	task := alloc.Job.TaskGroups[0].Tasks[0]
	td, err := ad.TaskDir(task.Name)
	must.NoError(t, err)
	h := &harness{
		t:       t,
		alloc:   alloc,
		task:    task,
		driver:  mock.New(nil),
		db:      state.NewMemDB(),
		taskDir: td,
		updates: &countingUpdater{},
	}
	h.catalog = drivers.NewCatalog(h.driver)
	h.tr = h.newRunner(opts...)
	return h
}

// newBatchHarness is newHarness for a batch job of the one task.
func newBatchHarness(t *testing.T, task *structs.Task, opts ...harnessOpt) *harness {
	t.Helper()
	return newHarness(t, testAlloc(structs.JobTypeBatch, task), opts...)
}

// newRunner makes a task runner over the harness's driver and state DB:
// the first one, or the one an agent restart brings.
func (h *harness) newRunner(opts ...harnessOpt) *TaskRunner {
	h.t.Helper()
	cfg := &Config{
		Alloc:        h.alloc,
		Task:         h.task,
		TaskDir:      h.taskDir,
		Drivers:      h.catalog,
		StateDB:      h.db,
		StateUpdater: h.updates,
		// The tests' artifact servers are on 127.0.0.1.
		Artifact: &ArtifactConfig{
			DecompressionSizeLimit:      DefaultDecompressionSizeLimit,
			DecompressionFileCountLimit: DefaultDecompressionFileCountLimit,
			Addresses:                   loopbackAllowed(h.t),
		},
	}
	for _, o := range opts {
		o(cfg)
	}
	tr, err := NewTaskRunner(cfg)
	must.NoError(h.t, err)
	return tr
}

// run starts the runner and returns a function that waits for it.
func (h *harness) run() {
	go h.tr.Run()
}

func (h *harness) waitDead() *structs.TaskState {
	h.t.Helper()
	<-h.tr.WaitCh()
	ts := h.tr.TaskState()
	must.Eq(h.t, structs.TaskStateDead, ts.State)
	return ts
}

// kill kills the task and waits for it to die.
func (h *harness) kill(ev *structs.TaskEvent) {
	h.t.Helper()
	must.NoError(h.t, h.tr.Kill(context.Background(), ev))
}
