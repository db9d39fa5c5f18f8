package allocrunner

import (
	"sync"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/structs"
)

// mockTask is a mock task with the given config, no restarts and a 5s
// kill_timeout.
func mockTask(name string, config map[string]any) *structs.Task {
	return tasktest.Task(name, mock.DriverName, config)
}

func withLifecycle(t *structs.Task, hook string, sidecar bool) *structs.Task {
	t.Lifecycle = &structs.TaskLifecycle{Hook: hook, Sidecar: sidecar}
	return t
}

// mainAndCleanup is an allocation of a main task that runs for an hour and
// a poststop task, cleanup, that runs for cleanupRunFor.
func mainAndCleanup(cleanupRunFor string) *structs.Allocation {
	return testAlloc(
		mockTask("main", map[string]any{"run_for": "1h"}),
		withLifecycle(mockTask("cleanup", map[string]any{"run_for": cleanupRunFor}), structs.TaskLifecycleHookPoststop, false),
	)
}

func testAlloc(tasks ...*structs.Task) *structs.Allocation {
	return &structs.Allocation{
		ID:        structs.GenerateUUID(),
		Namespace: "default",
		Name:      "example.web[0]",
		JobID:     "example",
		TaskGroup: "web",
		Job: &structs.Job{
			ID:         "example",
			Name:       "example",
			Type:       structs.JobTypeBatch,
			TaskGroups: []*structs.TaskGroup{{Name: "web", Tasks: tasks}},
		},
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusPending,
		CreateTime:    time.Now().UnixNano(),
	}
}

// stopByServers gives ar alloc as the servers send it once they have
// stopped it.
func stopByServers(ar *AllocRunner, alloc *structs.Allocation) {
	stopped := alloc.Copy()
	stopped.DesiredStatus = structs.AllocDesiredStatusStop
	ar.Update(stopped)
}

// recorder is an AllocStateHandler that keeps every update, and when it
// came.
type recorder struct {
	mu      sync.Mutex
	updates []*structs.Allocation
	times   []time.Time
}

func (r *recorder) AllocStateUpdated(a *structs.Allocation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, a)
	r.times = append(r.times, time.Now())
}

// firstTerminal returns the first update with a terminal client status and
// when it came; nil if none was.
func (r *recorder) firstTerminal() (*structs.Allocation, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, a := range r.updates {
		if a.ClientTerminalStatus() {
			return a, r.times[i]
		}
	}
	return nil, time.Time{}
}

func (r *recorder) statuses() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, a := range r.updates {
		if n := len(out); n == 0 || out[n-1] != a.ClientStatus {
			out = append(out, a.ClientStatus)
		}
	}
	return out
}

func (r *recorder) last() *structs.Allocation {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.updates) == 0 {
		return nil
	}
	return r.updates[len(r.updates)-1]
}

// arHarness is an alloc runner over a mock driver.
type arHarness struct {
	t       *testing.T
	root    string
	driver  *mock.Driver
	catalog *drivers.Catalog
	db      state.StateDB
	handler *recorder
	opts    []func(*Config)
	ar      *AllocRunner
}

// newARHarness returns a harness whose runner runs alloc; opts adjust the
// runner's config.
func newARHarness(t *testing.T, alloc *structs.Allocation, opts ...func(*Config)) *arHarness {
	t.Helper()
	h := &arHarness{t: t, root: t.TempDir(), driver: mock.New(nil), db: state.NewMemDB(), handler: &recorder{}, opts: opts}
	h.catalog = drivers.NewCatalog(h.driver)
	h.ar = h.newRunner(alloc)
	return h
}

func (h *arHarness) newRunner(alloc *structs.Allocation) *AllocRunner {
	h.t.Helper()
	cfg := &Config{
		Alloc:        alloc,
		AllocDirRoot: h.root,
		StateDB:      h.db,
		Drivers:      h.catalog,
		StateUpdater: h.handler,
		Node:         &structs.Node{ID: "node-1", Datacenter: "dc1"},
	}
	for _, opt := range h.opts {
		opt(cfg)
	}
	ar, err := NewAllocRunner(cfg)
	must.NoError(h.t, err)
	return ar
}

// runToEnd runs ar and waits until it is done.
func runToEnd(ar *AllocRunner) {
	go ar.Run()
	<-ar.WaitCh()
}

func (h *arHarness) taskState(name string) *structs.TaskState {
	h.t.Helper()
	ts := h.ar.Alloc().TaskStates[name]
	must.NotNil(h.t, ts, must.Sprintf("no state for task %q", name))
	return ts
}
