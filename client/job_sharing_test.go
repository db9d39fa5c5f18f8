package client

import (
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// runnerJob is the job the runner of allocation id holds.
func runnerJob(t *testing.T, c *Client, id string) *structs.Job {
	t.Helper()
	ar, err := c.AllocRunner(id)
	must.NoError(t, err)
	return ar.Alloc().Job
}

// TestClient_keepsOneCopyPerJobVersion: the allocations of one job
// version, each pulled with a copy of its own (the fake server copies,
// as the RPC decodes), share one copy in their runners, also after a
// restart restores them from the client state; another version has its
// own.
func TestClient_keepsOneCopyPerJobVersion(t *testing.T) {
	srv := newFakeServer()
	drv := mock.New(nil)
	stateDir, allocDir := t.TempDir(), t.TempDir()
	withState := func(cfg *Config) { cfg.StateDir, cfg.AllocDir = stateDir, allocDir }
	first := testClient(t, srv, drv, withState)
	<-first.Registered()

	var ids []string
	for i := range 4 {
		a := mockAlloc(first.NodeID(), map[string]any{"run_for": "1h"})
		a.Job.Version, a.Job.CreateIndex, a.Job.JobModifyIndex = 0, 5, 5
		if i == 3 {
			a.Job.Version, a.Job.JobModifyIndex = 1, 8
		}
		srv.place(a)
		ids = append(ids, a.ID)
		// One at a time: each pull is a response of its own.
		waitfor.True(t, "alloc running", func() bool { return serverStatus(srv, a.ID) == structs.AllocClientStatusRunning })
	}
	mustShare := func(c *Client) {
		t.Helper()
		v0 := runnerJob(t, c, ids[0])
		for _, id := range ids[1:3] {
			must.True(t, runnerJob(t, c, id) == v0, must.Sprintf("the runner of %s shares version 0", id))
		}
		v1 := runnerJob(t, c, ids[3])
		must.Eq(t, 1, v1.Version)
		must.False(t, v1 == v0)
	}
	mustShare(first)
	must.NoError(t, first.Shutdown())

	second := testClient(t, srv, drv, withState)
	mustShare(second)
}

// The allocations of one pull, decoded each with copies of their own, share
// their equal parts once the client has them.
func TestShareParts(t *testing.T) {
	var allocs []*structs.Allocation
	for range 3 {
		a := mockAlloc("node-1", map[string]any{"run_for": "1h"})
		a.EvalID = "eval-1"
		a.Resources = &structs.Resources{CPU: 100, MemoryMB: 32}
		a.Metrics = &structs.AllocMetric{NodesEvaluated: 1, Scores: map[string]float64{"node-1.binpack": 0.5}}
		encoded, err := json.Marshal(a)
		must.NoError(t, err)
		var decoded structs.Allocation
		must.NoError(t, json.Unmarshal(encoded, &decoded))
		allocs = append(allocs, &decoded)
	}
	must.False(t, allocs[0].Resources == allocs[1].Resources)
	shareParts(allocs)
	for _, a := range allocs[1:] {
		must.True(t, a.Resources == allocs[0].Resources, must.Sprint("one copy of equal resources"))
		must.True(t, unsafe.StringData(a.EvalID) == unsafe.StringData(allocs[0].EvalID), must.Sprint("one copy of the evaluation ID"))
	}
	for _, a := range allocs {
		must.Nil(t, a.Metrics, must.Sprint("the client keeps no scheduler metric"))
	}
}
