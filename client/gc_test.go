package client

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// finishAllocs places n short allocations and waits until each has
// finished on the client, in order.
func finishAllocs(t *testing.T, srv *fakeServer, c *Client, n int) []*structs.Allocation {
	t.Helper()
	var out []*structs.Allocation
	for range n {
		a := mockAlloc(c.NodeID(), map[string]any{"run_for": "10ms"})
		srv.place(a)
		waitfor.True(t, "alloc complete", func() bool { return serverStatus(srv, a.ID) == structs.AllocClientStatusComplete })
		waitfor.True(t, "runner finished", func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			e := c.runners[a.ID]
			return e != nil && !e.finishedAt.IsZero()
		})
		out = append(out, a)
	}
	return out
}

func gone(t *testing.T, c *Client, id string) bool {
	t.Helper()
	_, err := c.AllocRunner(id)
	_, statErr := os.Stat(filepath.Join(c.config.AllocDir, id))
	return err != nil && os.IsNotExist(statErr)
}

// TestClient_CollectOnRequest: one finished allocation goes on request,
// a running one is refused, an unknown one is not found, and CollectAll
// removes every finished one but leaves the running one.
func TestClient_CollectOnRequest(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil))
	<-c.Registered()
	done := finishAllocs(t, srv, c, 3)
	live := placeRunning(t, srv, c, map[string]any{"run_for": "1h"})
	ctx := context.Background()

	must.ErrorIs(t, c.CollectAlloc(ctx, live.ID), ErrAllocNotTerminal)
	must.ErrorIs(t, c.CollectAlloc(ctx, structs.GenerateUUID()), ErrUnknownAlloc)
	must.NoError(t, c.CollectAlloc(ctx, done[0].ID))
	must.True(t, gone(t, c, done[0].ID))

	n, err := c.CollectAll(ctx)
	must.NoError(t, err)
	must.Eq(t, 2, n)
	for _, a := range done {
		must.True(t, gone(t, c, a.ID))
	}
	_, err = c.AllocRunner(live.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocClientStatusRunning, serverStatus(srv, live.ID))
}

// TestClient_CollectForDisk: past gc_disk_usage_threshold (or
// gc_inode_usage_threshold), finished allocations go, the oldest first,
// until the filesystem is below it; a running one never goes.
func TestClient_CollectForDisk(t *testing.T) {
	for _, which := range []string{"disk", "inodes"} {
		t.Run(which, func(t *testing.T) {
			srv := newFakeServer()
			var c *Client
			// Full while more than one allocation has finished.
			usage := func(string) (diskUsage, error) {
				full := len(c.finishedRunners()) > 1
				u := diskUsage{used: 50, available: 50, inodes: 100, inodesFree: 50}
				switch {
				case full && which == "disk":
					u.used, u.available = 81, 19
				case full:
					u.inodesFree = 29
				}
				return u, nil
			}
			c = testClient(t, srv, mock.New(nil), func(cfg *Config) { cfg.statDisk = usage })
			<-c.Registered()
			done := finishAllocs(t, srv, c, 3)
			live := placeRunning(t, srv, c, map[string]any{"run_for": "1h"})

			c.collectForDisk(context.Background())
			must.True(t, gone(t, c, done[0].ID))
			must.True(t, gone(t, c, done[1].ID))
			must.False(t, gone(t, c, done[2].ID))
			must.False(t, gone(t, c, live.ID))
		})
	}
}

// TestConfig_gcThresholdsArePercentages refuses thresholds out of range.
func TestConfig_gcThresholdsArePercentages(t *testing.T) {
	cfg := &Config{NodeName: "n", Datacenter: "dc1", AllocDir: "/x", GCDiskUsageThreshold: 101}
	must.ErrorContains(t, cfg.validate(), "gc_disk_usage_threshold")
	cfg.GCDiskUsageThreshold, cfg.GCInodeUsageThreshold = 80, -1
	must.ErrorContains(t, cfg.validate(), "gc_inode_usage_threshold")
}
