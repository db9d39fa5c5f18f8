package client

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestClient_RegistersFingerprintedNode(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil), func(cfg *Config) {
		cfg.NodeClass = "batch"
		cfg.Meta = map[string]string{"rack": "r1"}
	})
	<-c.Registered()

	srv.mu.Lock()
	node := srv.nodes[c.NodeID()].Copy()
	srv.mu.Unlock()
	must.Eq(t, "node-a", node.Name)
	must.Eq(t, "dc1", node.Datacenter)
	must.Eq(t, "batch", node.NodeClass)
	must.Eq(t, "default", node.NodePool)
	must.Eq(t, "127.0.0.1:4646", node.HTTPAddr)
	must.Eq(t, structs.NodeStatusReady, node.Status)
	must.Eq(t, "r1", node.Meta["rack"])
	for _, attr := range []string{"kernel.name", "cpu.arch", "cpu.numcores", "cpu.totalcompute", "memory.totalbytes", "unique.hostname"} {
		must.MapContainsKey(t, node.Attributes, attr)
	}
	must.Eq(t, "1", node.Attributes["driver."+mock.DriverName])
	info := node.Drivers[mock.DriverName]
	must.NotNil(t, info)
	must.True(t, info.Detected)
	must.True(t, info.Healthy)
	must.Positive(t, node.NodeResources.Cpu.CpuShares)
	must.Positive(t, node.NodeResources.Memory.MemoryMB)
}

func TestClient_RunsAndReportsPlacedAlloc(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil))
	<-c.Registered()

	a := mockAlloc(c.NodeID(), map[string]any{"run_for": "50ms"})
	srv.place(a)
	waitfor.True(t, "alloc complete on the server", func() bool {
		return serverStatus(srv, a.ID) == structs.AllocClientStatusComplete
	})
	got := srv.alloc(a.ID)
	must.Eq(t, structs.TaskStateDead, got.TaskStates["work"].State)
	must.False(t, got.TaskStates["work"].Failed)
	must.Eq(t, 1, tasktest.CountEvents(got.TaskStates["work"], structs.TaskStarted))

	// Another node's allocation is not this client's business.
	other := mockAlloc("another-node", map[string]any{"run_for": "1h"})
	srv.place(other)
	must.Eq(t, 1, c.NumAllocs())
}

func TestClient_StopsAllocOnDesiredStop(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil))
	<-c.Registered()

	a := placeRunning(t, srv, c, map[string]any{"run_for": "1h"})

	srv.stop(a.ID)
	waitfor.True(t, "alloc complete after stop", func() bool {
		return serverStatus(srv, a.ID) == structs.AllocClientStatusComplete
	})
	ts := srv.alloc(a.ID).TaskStates["work"]
	must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskKilling))
}

func TestClient_DestroysAllocTheServersDropped(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil))
	<-c.Registered()

	a := placeRunning(t, srv, c, map[string]any{"run_for": "1h"})
	dir := filepath.Join(c.config.AllocDir, a.ID)
	_, err := os.Stat(dir)
	must.NoError(t, err)

	srv.remove(a.ID)
	waitfor.True(t, "runner removed", func() bool { return c.NumAllocs() == 0 })
	_, err = os.Stat(dir)
	must.True(t, os.IsNotExist(err), must.Sprintf("alloc dir still there: %v", err))
	_, err = c.AllocRunner(a.ID)
	must.ErrorIs(t, err, ErrUnknownAlloc)
}

func TestClient_IgnoresAllocFinishedBeforeItSawIt(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil))
	<-c.Registered()

	done := mockAlloc(c.NodeID(), map[string]any{"run_for": "1h"})
	done.ClientStatus = structs.AllocClientStatusComplete
	srv.place(done)
	live := mockAlloc(c.NodeID(), map[string]any{"run_for": "1h"})
	srv.place(live)
	waitfor.True(t, "live alloc running", func() bool { return serverStatus(srv, live.ID) == structs.AllocClientStatusRunning })
	must.Eq(t, 1, c.NumAllocs())
	_, err := c.AllocRunner(done.ID)
	must.ErrorIs(t, err, ErrUnknownAlloc)
}

func TestClient_RegistersAgainWhenForgotten(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil))
	<-c.Registered()
	waitfor.True(t, "heartbeats", func() bool { _, hb := srv.counts(); return hb >= 2 })

	srv.mu.Lock()
	srv.forgetNode = true
	srv.mu.Unlock()
	waitfor.True(t, "second registration", func() bool { r, _ := srv.counts(); return r >= 2 })
	srv.mu.Lock()
	_, known := srv.nodes[c.NodeID()]
	srv.mu.Unlock()
	must.True(t, known)
}

func TestClient_GarbageCollectsOldestFinishedAllocs(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil), func(cfg *Config) { cfg.GCMaxAllocs = 1 })
	<-c.Registered()

	first := mockAlloc(c.NodeID(), map[string]any{"run_for": "10ms"})
	srv.place(first)
	waitfor.True(t, "first complete", func() bool { return serverStatus(srv, first.ID) == structs.AllocClientStatusComplete })
	second := mockAlloc(c.NodeID(), map[string]any{"run_for": "10ms"})
	srv.place(second)
	waitfor.True(t, "second complete", func() bool { return serverStatus(srv, second.ID) == structs.AllocClientStatusComplete })

	waitfor.True(t, "first collected", func() bool {
		_, err := c.AllocRunner(first.ID)
		return err != nil
	})
	_, err := c.AllocRunner(second.ID)
	must.NoError(t, err)
	_, err = os.Stat(filepath.Join(c.config.AllocDir, first.ID))
	must.True(t, os.IsNotExist(err))
	// Still listed by the servers, the collected alloc is not run again.
	srv.place(mockAlloc(c.NodeID(), map[string]any{"run_for": "1h"}))
	waitfor.True(t, "new alloc picked up", func() bool { return c.NumAllocs() == 2 })
	_, err = c.AllocRunner(first.ID)
	must.ErrorIs(t, err, ErrUnknownAlloc)
}

func TestClient_RestartReattachesFromState(t *testing.T) {
	srv := newFakeServer()
	drv := mock.New(nil)
	stateDir := t.TempDir()
	allocDir := t.TempDir()
	withState := func(cfg *Config) {
		cfg.StateDir = stateDir
		cfg.AllocDir = allocDir
	}

	first := testClient(t, srv, drv, withState)
	<-first.Registered()
	a := placeRunning(t, srv, first, map[string]any{"run_for": "2s", "exit_code": 3})
	started := srv.alloc(a.ID).TaskStates["work"].StartedAt
	must.False(t, started.IsZero())
	must.NoError(t, first.Shutdown())

	// The mock driver keeps its tasks across clients, as a raw_exec
	// supervisor keeps running across agents.
	second := testClient(t, srv, drv, withState)
	must.Eq(t, first.NodeID(), second.NodeID())
	_, err := second.AllocRunner(a.ID)
	must.NoError(t, err, must.Sprint("runner not restored before the first server contact"))

	waitfor.True(t, "alloc failed with the task's exit code", func() bool {
		return serverStatus(srv, a.ID) == structs.AllocClientStatusFailed
	})
	ts := srv.alloc(a.ID).TaskStates["work"]
	must.Eq(t, 1, tasktest.CountEvents(ts, structs.TaskStarted), must.Sprint("task was started again instead of re-attached"))
	must.True(t, started.Equal(ts.StartedAt), must.Sprintf("task was started again at %s instead of re-attached (first start %s)", ts.StartedAt, started))
	var exit string
	for _, ev := range ts.Events {
		if ev.Type == structs.TaskTerminated {
			exit = ev.Details["exit_code"]
		}
	}
	must.Eq(t, "3", exit)
}

func TestClient_NodeIdentityPersisted(t *testing.T) {
	dir := t.TempDir()
	id, err := loadNodeIdentity("", dir)
	must.NoError(t, err)
	must.NotEq(t, "", id.SecretID)
	must.NotEq(t, id.ID, id.SecretID)
	again, err := loadNodeIdentity("", dir)
	must.NoError(t, err)
	must.Eq(t, id, again)
	info, err := os.Stat(filepath.Join(dir, secretIDFile))
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o600), info.Mode().Perm(), must.Sprint("the secret ID is for the agent's user alone"))

	forced, err := loadNodeIdentity("forced-id", dir)
	must.NoError(t, err)
	must.Eq(t, NodeIdentity{ID: "forced-id", SecretID: id.SecretID}, forced)

	must.NoError(t, os.WriteFile(filepath.Join(dir, nodeIDFile), []byte("  \n"), 0o600))
	_, err = loadNodeIdentity("", dir)
	must.ErrorContains(t, err, "not an ID")

	a, err := loadNodeIdentity("", "")
	must.NoError(t, err)
	b, err := loadNodeIdentity("", "")
	must.NoError(t, err)
	must.NotEq(t, a.ID, b.ID)
	must.NotEq(t, a.SecretID, b.SecretID)
}

func TestClient_ConfigErrors(t *testing.T) {
	_, err := New(&Config{})
	must.ErrorContains(t, err, "node name is required")
	must.ErrorContains(t, err, "alloc dir is required")
	must.ErrorContains(t, err, "a server connection is required")
	_, err = New(nil)
	must.Error(t, err)
}

func TestClient_ShutdownDestroysInDevMode(t *testing.T) {
	srv := newFakeServer()
	drv := mock.New(nil)
	c := testClient(t, srv, drv, func(cfg *Config) { cfg.DestroyOnShutdown = true })
	<-c.Registered()
	a := placeRunning(t, srv, c, map[string]any{"run_for": "1h"})

	start := time.Now()
	must.NoError(t, c.Shutdown())
	t.Logf("shutdown took %s", time.Since(start))
	_, err := os.Stat(filepath.Join(c.config.AllocDir, a.ID))
	must.True(t, os.IsNotExist(err))
	// The final state reached the servers before Shutdown returned.
	must.Eq(t, structs.AllocClientStatusComplete, serverStatus(srv, a.ID))
}

// TestClient_allocRootReachableNotListable: every user may reach the
// allocation directories (a task may run as another user), none but the
// agent's may list them, also when the directory existed with a narrower
// mode.
func TestClient_allocRootReachableNotListable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "alloc")
	must.NoError(t, os.Mkdir(dir, 0o700))
	testClient(t, newFakeServer(), mock.New(nil), func(c *Config) { c.AllocDir = dir })
	info, err := os.Stat(dir)
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o711), info.Mode().Perm())
}
