package state

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// placedAllocs are n allocations of job on one node as a plan carries
// them, each decoded from JSON as a raft entry is (every string, map and
// struct a copy of its own).
func placedAllocs(t *testing.T, job *structs.Job, nodeID string, n int) []*structs.Allocation {
	t.Helper()
	allocs := make([]*structs.Allocation, n)
	for i := range allocs {
		a := testAlloc(job, "eval-00000000-0000-4000-8000-000000000001", nodeID)
		a.Name = fmt.Sprintf("%s.web[%d]", job.ID, i)
		a.NodeName = "node-" + nodeID
		a.Resources = &structs.Resources{CPU: 1, MemoryMB: 10}
		a.TaskResources = map[string]*structs.Resources{"sleep": {CPU: 1, MemoryMB: 10}}
		a.Metrics = &structs.AllocMetric{
			NodesEvaluated: 1, NodesInPool: 1, NodePool: "default",
			NodesAvailable: map[string]int{"dc1": 1},
			Scores:         map[string]float64{nodeID + ".binpack": float64(i) / float64(n), nodeID + ".normalized-score": float64(i) / float64(n)},
			AllocationTime: time.Millisecond,
		}
		allocs[i] = a
	}
	return decodedCopy(t, allocs)
}

func decodedCopy(t *testing.T, allocs []*structs.Allocation) []*structs.Allocation {
	t.Helper()
	encoded, err := json.Marshal(allocs)
	must.NoError(t, err)
	var out []*structs.Allocation
	must.NoError(t, json.Unmarshal(encoded, &out))
	return out
}

// clientUpdates are a client's updates of allocs as a task of each starts:
// received, set up, started, in batches of ten allocations, each decoded
// of its own.
func clientUpdates(t *testing.T, allocs []*structs.Allocation) [][]*structs.Allocation {
	t.Helper()
	at := time.Unix(1_700_000_000, 0)
	events := []*structs.TaskEvent{
		{Type: structs.TaskReceived, Time: at.UnixNano(), DisplayMessage: "Task received by client", Details: map[string]string{}},
		{Type: structs.TaskSetup, Time: at.UnixNano() + 1, Message: "Building Task Directory", DisplayMessage: "Building Task Directory", Details: map[string]string{"message": "Building Task Directory"}},
		{Type: structs.TaskStarted, Time: at.UnixNano() + 2, DisplayMessage: "Task started by client", Details: map[string]string{}},
	}
	var batches [][]*structs.Allocation
	for step := 1; step <= len(events); step++ {
		batch := make([]*structs.Allocation, len(allocs))
		for i, a := range allocs {
			state := &structs.TaskState{State: structs.TaskStatePending, Events: events[:step]}
			status := structs.AllocClientStatusPending
			if step == len(events) {
				state.State, state.StartedAt, status = structs.TaskStateRunning, at, structs.AllocClientStatusRunning
			}
			batch[i] = &structs.Allocation{ID: a.ID, ClientStatus: status, ModifyTime: at.UnixNano() + int64(i),
				TaskStates: map[string]*structs.TaskState{"sleep": state}}
		}
		// A client sends its updates a few allocations at a time, each
		// batch a raft entry decoded of its own.
		for i := 0; i < len(batch); i += 10 {
			batches = append(batches, decodedCopy(t, batch[i:min(i+10, len(batch))]))
		}
	}
	return batches
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// An allocation placed and then reported running by its client costs the
// store a bounded number of bytes, measured. About 3.7 KiB today: the
// allocation (416 bytes), its entries in three indexes (about 470 bytes
// each), its scheduler metric (about 500) and the task states its client
// reported (about 1.3 KiB, three events of 288 bytes among them).
func TestAllocs_memoryPerStoredAllocation(t *testing.T) {
	const n = 2000
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("example"))
	before := heapAlloc()
	placed := placedAllocs(t, job, "00000000-0000-4000-8000-00000000000a", n)
	updates := clientUpdates(t, placed)

	must.NoError(t, s.UpsertAllocs(10, placed))
	placed = nil
	afterPlace := heapAlloc()
	for i, batch := range updates {
		must.NoError(t, s.UpdateAllocsFromClient(uint64(11+i), batch))
	}
	updates = nil
	afterUpdates := heapAlloc()
	perPlaced := float64(afterPlace-before) / n
	perAlloc := float64(afterUpdates-before) / n
	t.Logf("per allocation: %.0f bytes placed, %.0f bytes once running", perPlaced, perAlloc)
	runtime.KeepAlive(s)
	must.Less(t, 4<<10, perAlloc, must.Sprintf("%.0f bytes per allocation", perAlloc))
}
