package client

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// fakeServer is a ServerConn over an in-memory view of one cluster: it
// stores allocations, bumps an index on every change as the state store
// does, and answers blocking queries.
type fakeServer struct {
	mu      sync.Mutex
	index   uint64
	changed chan struct{}
	nodes   map[string]*structs.Node
	allocs  map[string]*structs.Allocation

	registers  int
	heartbeats int
	// forgetNode makes the next heartbeat fail with ErrUnknownNode.
	forgetNode bool
	// failUpdates makes that many UpdateAllocs calls fail.
	failUpdates int
	batches     [][]*structs.Allocation
	// services holds the registrations by ID, as the servers keep them.
	services map[string]*structs.ServiceRegistration
}

func newFakeServer() *fakeServer {
	return &fakeServer{
		// As in raft, the first write comes after index 1.
		index:   1,
		changed: make(chan struct{}),
		nodes:   map[string]*structs.Node{},
		allocs:  map[string]*structs.Allocation{},
	}
}

// bumpLocked records a change: a new index, and blocking queries wake.
func (f *fakeServer) bumpLocked() uint64 {
	f.index++
	close(f.changed)
	f.changed = make(chan struct{})
	return f.index
}

func (f *fakeServer) RegisterNode(_ context.Context, node *structs.Node) (time.Duration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.registers++
	f.nodes[node.ID] = node.Copy()
	return 50 * time.Millisecond, nil
}

func (f *fakeServer) Heartbeat(_ context.Context, node NodeIdentity) (time.Duration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	nodeID := node.ID
	f.heartbeats++
	if f.forgetNode {
		f.forgetNode = false
		delete(f.nodes, nodeID)
	}
	if _, ok := f.nodes[nodeID]; !ok {
		return 0, fmt.Errorf("heartbeat %s: %w", nodeID, ErrUnknownNode)
	}
	return 50 * time.Millisecond, nil
}

func (f *fakeServer) NodeAllocs(ctx context.Context, node NodeIdentity, minIndex uint64, wait time.Duration) (map[string]uint64, uint64, error) {
	nodeID := node.ID
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		f.mu.Lock()
		if minIndex == 0 || f.index > minIndex {
			out := map[string]uint64{}
			for id, a := range f.allocs {
				if a.NodeID == nodeID {
					out[id] = a.AllocModifyIndex
				}
			}
			index := f.index
			f.mu.Unlock()
			return out, index, nil
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			minIndex = 0
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

func (f *fakeServer) Allocs(_ context.Context, _ NodeIdentity, ids []string) ([]*structs.Allocation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*structs.Allocation
	for _, id := range ids {
		if a, ok := f.allocs[id]; ok {
			out = append(out, a.Copy())
		}
	}
	return out, nil
}

func (f *fakeServer) UpdateAllocs(_ context.Context, _ NodeIdentity, allocs []*structs.Allocation) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failUpdates > 0 {
		f.failUpdates--
		return fmt.Errorf("update refused")
	}
	f.batches = append(f.batches, allocs)
	for _, u := range allocs {
		if a, ok := f.allocs[u.ID]; ok {
			a.ClientStatus = u.ClientStatus
			a.ClientDescription = u.ClientDescription
			a.TaskStates = u.TaskStates
			a.ModifyIndex = f.bumpLocked()
		}
	}
	return nil
}

// place stores an allocation as the scheduler would.
func (f *fakeServer) place(a *structs.Allocation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a = a.Copy()
	a.AllocModifyIndex = f.bumpLocked()
	f.allocs[a.ID] = a
}

// stop sets an allocation's desired status to stop.
func (f *fakeServer) stop(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.allocs[id]
	a.DesiredStatus = structs.AllocDesiredStatusStop
	a.AllocModifyIndex = f.bumpLocked()
}

// remove deletes an allocation, as garbage collection does.
func (f *fakeServer) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.allocs, id)
	f.bumpLocked()
}

func (f *fakeServer) alloc(id string) *structs.Allocation {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.allocs[id].Copy()
}

func (f *fakeServer) counts() (registers, heartbeats int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.registers, f.heartbeats
}

// testClient starts a client over srv with the given mock driver, and shuts
// it down when the test ends.
func testClient(t *testing.T, srv ServerConn, drv *mock.Driver, mutate ...func(*Config)) *Client {
	t.Helper()
	cfg := &Config{
		Logger:     hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: testWriter{t}}),
		NodeName:   "node-a",
		Datacenter: "dc1",
		HTTPAddr:   "127.0.0.1:4646",
		AllocDir:   t.TempDir(),
		Drivers:    drivers.NewCatalog(drv),
		Servers:    srv,
	}
	for _, m := range mutate {
		m(cfg)
	}
	c, err := New(cfg)
	must.NoError(t, err)
	t.Cleanup(func() { must.NoError(t, c.Shutdown()) })
	return c
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// mockAlloc is an allocation of a batch job with one mock task.
func mockAlloc(nodeID string, config map[string]any) *structs.Allocation {
	task := &structs.Task{
		Name:        "work",
		Driver:      mock.DriverName,
		Config:      config,
		KillTimeout: 5 * time.Second,
		Resources:   &structs.Resources{CPU: 100, MemoryMB: 32},
		LogConfig:   structs.DefaultLogConfig(),
		RestartPolicy: &structs.RestartPolicy{
			Attempts: 0, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail,
		},
	}
	return &structs.Allocation{
		ID:        structs.GenerateUUID(),
		Namespace: "default",
		Name:      "job.group[0]",
		NodeID:    nodeID,
		JobID:     "job",
		TaskGroup: "group",
		Job: &structs.Job{
			ID: "job", Name: "job", Namespace: "default", Type: structs.JobTypeBatch,
			TaskGroups: []*structs.TaskGroup{{Name: "group", Count: 1, Tasks: []*structs.Task{task}}},
		},
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusPending,
		CreateTime:    time.Now().UnixNano(),
	}
}

// placeRunning places a mock allocation with the given config on c's node
// and waits until the servers hear that it runs.
func placeRunning(t *testing.T, srv *fakeServer, c *Client, config map[string]any) *structs.Allocation {
	t.Helper()
	a := mockAlloc(c.NodeID(), config)
	srv.place(a)
	waitfor.True(t, "alloc running", func() bool { return serverStatus(srv, a.ID) == structs.AllocClientStatusRunning })
	return a
}

// serverStatus is the client status the fake server holds for an alloc.
func serverStatus(f *fakeServer, id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.allocs[id]; ok {
		return a.ClientStatus
	}
	return ""
}

func (f *fakeServer) RegisterServices(_ context.Context, _ NodeIdentity, regs []*structs.ServiceRegistration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.services == nil {
		f.services = make(map[string]*structs.ServiceRegistration)
	}
	for _, r := range regs {
		f.services[r.ID] = r
	}
	return nil
}

func (f *fakeServer) DeregisterServices(_ context.Context, _ NodeIdentity, allocIDs []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, r := range f.services {
		if slices.Contains(allocIDs, r.AllocID) {
			delete(f.services, id)
		}
	}
	return nil
}

// registeredServices returns the registrations the fake server holds.
func (f *fakeServer) registeredServices() []*structs.ServiceRegistration {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*structs.ServiceRegistration, 0, len(f.services))
	for _, r := range f.services {
		out = append(out, r)
	}
	return out
}
