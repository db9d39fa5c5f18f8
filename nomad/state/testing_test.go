package state

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func newStore(t *testing.T) *StateStore {
	t.Helper()
	s, err := NewStateStore()
	must.NoError(t, err)
	return s
}

// testJob returns a batch job in the default namespace, shaped as it comes
// out of JSON decoding (numbers in task configs are float64).
func testJob(id string) *structs.Job {
	maxRun := 10 * time.Second
	return &structs.Job{
		Region:      structs.DefaultRegion,
		Namespace:   structs.DefaultNamespace,
		ID:          id,
		Name:        id,
		Type:        structs.JobTypeBatch,
		Priority:    structs.DefaultPriority,
		Datacenters: []string{"dc1"},
		NodePool:    structs.DefaultNodePool,
		TaskGroups: []*structs.TaskGroup{{
			Name:           "web",
			Count:          2,
			MaxRunDuration: &maxRun,
			Tasks: []*structs.Task{{
				Name:   "sleep",
				Driver: "mock",
				Config: map[string]any{"run_for": "1s", "exit_code": float64(0), "args": []any{"a", "b"}},
				Resources: &structs.Resources{
					CPU: 100, MemoryMB: 64,
				},
			}},
		}},
		Meta: map[string]string{"owner": "test"},
	}
}

var testIDs atomic.Uint64

// testID returns a UUID-shaped ID, distinct across the test binary.
func testID() string {
	n := testIDs.Add(1)
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n)
}

func testEval(job *structs.Job) *structs.Evaluation {
	return &structs.Evaluation{
		ID:          testID(),
		Namespace:   job.Namespace,
		Priority:    job.Priority,
		Type:        job.Type,
		TriggeredBy: structs.EvalTriggerJobRegister,
		JobID:       job.ID,
		Status:      structs.EvalStatusPending,
		CreateTime:  1_700_000_000_000_000_000,
		ModifyTime:  1_700_000_000_000_000_000,
	}
}

// testAlloc returns an allocation of job's first group on nodeID, without
// its job, as a plan carries it.
func testAlloc(job *structs.Job, evalID, nodeID string) *structs.Allocation {
	return &structs.Allocation{
		ID:            testID(),
		Namespace:     job.Namespace,
		EvalID:        evalID,
		Name:          job.ID + ".web[0]",
		NodeID:        nodeID,
		JobID:         job.ID,
		TaskGroup:     "web",
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusPending,
		CreateTime:    1_700_000_000_000_000_000,
		ModifyTime:    1_700_000_000_000_000_000,
	}
}

func testNode(id string) *structs.Node {
	return &structs.Node{
		ID:         id,
		Datacenter: "dc1",
		Name:       "node-" + id,
		HTTPAddr:   "127.0.0.1:4646",
		Attributes: map[string]string{"kernel.name": "linux"},
		NodePool:   structs.DefaultNodePool,
		Status:     structs.NodeStatusReady,
		Drivers:    map[string]*structs.DriverInfo{"mock": {Detected: true, Healthy: true}},
	}
}

// mustUpsertJob stores a fresh copy of job at index and fails the test on error.
func mustUpsertJob(t *testing.T, s *StateStore, index uint64, job *structs.Job) *structs.Job {
	t.Helper()
	must.NoError(t, s.UpsertJob(index, job))
	stored, err := s.JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.NotNil(t, stored)
	return stored
}

// tableIndexes reads the index of every table.
func tableIndexes(t *testing.T, s *StateStore) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for _, table := range []string{TableJobs, TableJobVersions, TableEvals, TableAllocs, TableNodes, TablePeriodicLaunch} {
		idx, err := s.Index(table)
		must.NoError(t, err)
		out[table] = idx
	}
	return out
}

// testToken returns a token of the given type with fresh IDs and no
// policies.
func testToken(tokenType string) *structs.ACLToken {
	return &structs.ACLToken{
		AccessorID: testID(),
		SecretID:   testID(),
		Name:       tokenType + " token",
		Type:       tokenType,
		CreateTime: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
	}
}
