package state

import (
	"errors"
	"sync"

	"github.com/drover-io/drover/structs"
)

// MemDB is a StateDB in memory, for tests and dev mode. It stores and
// returns copies, so callers cannot change what it holds behind its back,
// but for an allocation's job: a job version is immutable, and shared by
// the allocations that run it.
type MemDB struct {
	mu     sync.Mutex
	allocs map[string]*memAlloc
}

type memAlloc struct {
	alloc  *structs.Allocation
	runner *AllocRunnerState
	tasks  map[string]*memTask
}

type memTask struct {
	local *TaskRunnerLocalState
	state *structs.TaskState
}

var _ StateDB = (*MemDB)(nil)

// NewMemDB returns an empty in-memory StateDB.
func NewMemDB() StateDB {
	return &MemDB{allocs: make(map[string]*memAlloc)}
}

func (m *MemDB) entry(allocID string) *memAlloc {
	e, ok := m.allocs[allocID]
	if !ok {
		e = &memAlloc{tasks: make(map[string]*memTask)}
		m.allocs[allocID] = e
	}
	return e
}

func (m *MemDB) PutAllocation(alloc *structs.Allocation) error {
	if alloc == nil || alloc.ID == "" {
		return errors.New("put allocation: allocation with an ID is required")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entry(alloc.ID).alloc = alloc.CopySkipJob()
	return nil
}

func (m *MemDB) GetAllAllocations() ([]*structs.Allocation, map[string]error, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var allocs []*structs.Allocation
	errs := make(map[string]error)
	for id, e := range m.allocs {
		if e.alloc == nil {
			errs[id] = errors.New("allocation has state but no allocation record")
			continue
		}
		allocs = append(allocs, e.alloc.CopySkipJob())
	}
	return allocs, errs, nil
}

func (m *MemDB) DeleteAllocationBucket(allocID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.allocs, allocID)
	return nil
}

func (m *MemDB) PutAllocRunnerState(allocID string, s *AllocRunnerState) error {
	if allocID == "" || s == nil {
		return errors.New("put alloc runner state: allocation ID and state are required")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entry(allocID).runner = s.Copy()
	return nil
}

func (m *MemDB) GetAllocRunnerState(allocID string) (*AllocRunnerState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.allocs[allocID]; ok {
		return e.runner.Copy(), nil
	}
	return nil, nil
}

func (m *MemDB) PutTaskRunnerState(allocID, task string, local *TaskRunnerLocalState, ts *structs.TaskState) error {
	if allocID == "" || task == "" {
		return errors.New("put task runner state: allocation ID and task name are required")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entry(allocID)
	t, ok := e.tasks[task]
	if !ok {
		t = &memTask{}
		e.tasks[task] = t
	}
	if local != nil {
		t.local = local.Copy()
	}
	if ts != nil {
		t.state = ts.Copy()
	}
	return nil
}

func (m *MemDB) GetTaskRunnerState(allocID, task string) (*TaskRunnerLocalState, *structs.TaskState, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.allocs[allocID]
	if !ok {
		return nil, nil, nil
	}
	t, ok := e.tasks[task]
	if !ok {
		return nil, nil, nil
	}
	return t.local.Copy(), t.state.Copy(), nil
}

func (m *MemDB) Close() error { return nil }
