package scheduler

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// harness is an in-memory cluster for scheduler tests: a real state store,
// and a planner that commits plans to it as the server's plan applier
// would, recording everything the scheduler asked for.
type harness struct {
	t     testing.TB
	store *state.StateStore
	index atomic.Uint64
	now   time.Time

	plans   []*structs.Plan
	updates []*structs.Evaluation
	creates []*structs.Evaluation
	reblock []*structs.Evaluation

	// reject, when set, leaves out every change of a plan on the nodes it
	// picks, as an applier does when another plan took their room.
	reject func(nodeID string) bool
	// overcommits records the nodes a committed plan overfilled.
	overcommits []string
	// checkFit makes SubmitPlan verify that no node is overfilled.
	checkFit bool
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	store, err := state.NewStateStore()
	must.NoError(t, err)
	h := &harness{t: t, store: store, now: time.Unix(1_700_000_000, 0), checkFit: true}
	h.index.Store(100)
	return h
}

func (h *harness) nextIndex() uint64 { return h.index.Add(1) }

func (h *harness) clock() time.Time { return h.now }

// SubmitPlan commits the plan to the store: stops, then placements and
// updates. New placements get the plan's job and their create time.
func (h *harness) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, State, error) {
	h.plans = append(h.plans, plan)
	result := &structs.PlanResult{
		NodeUpdate:     make(map[string][]*structs.Allocation),
		NodeAllocation: make(map[string][]*structs.Allocation),
	}
	var allocs []*structs.Allocation
	for nodeID, stops := range plan.NodeUpdate {
		if h.reject != nil && h.reject(nodeID) {
			continue
		}
		result.NodeUpdate[nodeID] = stops
		allocs = append(allocs, stops...)
	}
	now := h.now.UnixNano()
	for nodeID, placed := range plan.NodeAllocation {
		if h.reject != nil && h.reject(nodeID) {
			continue
		}
		result.NodeAllocation[nodeID] = placed
		for _, alloc := range placed {
			if alloc.Job == nil {
				alloc.Job = plan.Job
				alloc.CreateTime = now
			}
			alloc.ModifyTime = now
		}
		allocs = append(allocs, placed...)
	}
	index := h.nextIndex()
	if plan.Deployment != nil || len(plan.DeploymentUpdates) > 0 {
		if err := h.store.ApplyDeploymentChanges(index, plan.Deployment.Copy(), plan.DeploymentUpdates, now); err != nil {
			return nil, nil, fmt.Errorf("apply plan: %w", err)
		}
	}
	if len(allocs) > 0 {
		if err := h.store.UpsertAllocs(index, allocs); err != nil {
			return nil, nil, fmt.Errorf("apply plan: %w", err)
		}
	}
	result.AllocIndex = index
	if full, _, _ := result.FullCommit(plan); !full {
		result.RefreshIndex = index
	}
	if h.checkFit {
		h.verifyFit(plan)
	}
	return result, h.store, nil
}

// verifyFit records nodes of the plan whose live allocations exceed their
// capacity.
func (h *harness) verifyFit(plan *structs.Plan) {
	for nodeID := range plan.NodeAllocation {
		node, err := h.store.NodeByID(nil, nodeID)
		must.NoError(h.t, err)
		allocs, err := h.store.AllocsByNode(nil, nodeID)
		must.NoError(h.t, err)
		var used resources
		for _, a := range allocs {
			if holdsResources(a) {
				used.add(allocResources(a))
			}
		}
		if ok, _ := capacityOf(node).fit(used, resources{}); !ok {
			h.overcommits = append(h.overcommits, nodeID)
		}
	}
}

func (h *harness) UpdateEval(eval *structs.Evaluation) error {
	h.updates = append(h.updates, eval)
	return h.store.UpsertEvals(h.nextIndex(), []*structs.Evaluation{eval})
}

func (h *harness) CreateEval(eval *structs.Evaluation) error {
	h.creates = append(h.creates, eval)
	return h.store.UpsertEvals(h.nextIndex(), []*structs.Evaluation{eval})
}

func (h *harness) ReblockEval(eval *structs.Evaluation) error {
	h.reblock = append(h.reblock, eval)
	return h.store.UpsertEvals(h.nextIndex(), []*structs.Evaluation{eval})
}

// process runs the job type's scheduler on eval, after storing it.
func (h *harness) process(eval *structs.Evaluation) {
	h.t.Helper()
	must.NoError(h.t, h.store.UpsertEvals(h.nextIndex(), []*structs.Evaluation{eval}))
	sched, err := newScheduler(eval.Type, nil, h.store, h, h.clock)
	must.NoError(h.t, err)
	must.NoError(h.t, sched.Process(eval))
	must.SliceEmpty(h.t, h.overcommits)
}

// lastUpdate is the outcome of the latest processed evaluation.
func (h *harness) lastUpdate() *structs.Evaluation {
	h.t.Helper()
	must.SliceNotEmpty(h.t, h.updates)
	return h.updates[len(h.updates)-1]
}

func (h *harness) lastPlan() *structs.Plan {
	h.t.Helper()
	must.SliceNotEmpty(h.t, h.plans)
	return h.plans[len(h.plans)-1]
}

// createdEvals returns the evaluations created with the given trigger.
func (h *harness) createdEvals(trigger string) []*structs.Evaluation {
	var out []*structs.Evaluation
	for _, e := range h.creates {
		if e.TriggeredBy == trigger {
			out = append(out, e)
		}
	}
	return out
}

// addNodes registers n ready nodes built by mockNode, changed by modify.
func (h *harness) addNodes(n int, modify func(i int, node *structs.Node)) []*structs.Node {
	h.t.Helper()
	nodes := make([]*structs.Node, n)
	for i := range n {
		node := mockNode(i)
		if modify != nil {
			modify(i, node)
		}
		must.NoError(h.t, h.store.UpsertNode(h.nextIndex(), node))
		nodes[i] = node
	}
	return nodes
}

// upsertJob stores the job and returns the stored version.
func (h *harness) upsertJob(job *structs.Job) *structs.Job {
	h.t.Helper()
	must.NoError(h.t, h.store.UpsertJob(h.nextIndex(), job))
	stored, err := h.store.JobByID(nil, job.Namespace, job.ID)
	must.NoError(h.t, err)
	return stored
}

// updateJob stores a changed copy of the stored job.
func (h *harness) updateJob(job *structs.Job, change func(*structs.Job)) *structs.Job {
	h.t.Helper()
	next := job.Copy()
	change(next)
	return h.upsertJob(next)
}

// runJob stores the job and processes its registration.
func (h *harness) runJob(job *structs.Job) *structs.Job {
	h.t.Helper()
	stored := h.upsertJob(job)
	h.process(mockEval(stored, structs.EvalTriggerJobRegister))
	return stored
}

// allocs returns the job's allocations.
func (h *harness) allocs(job *structs.Job) []*structs.Allocation {
	h.t.Helper()
	allocs, err := h.store.AllocsByJob(nil, job.Namespace, job.ID)
	must.NoError(h.t, err)
	return allocs
}

// liveAllocs returns the job's allocations that are meant to run and have
// not finished.
func (h *harness) liveAllocs(job *structs.Job) []*structs.Allocation {
	var out []*structs.Allocation
	for _, a := range h.allocs(job) {
		if isLive(a) {
			out = append(out, a)
		}
	}
	return out
}

// setClientStatus reports a client status for allocations, finishing
// their task at finishedAt.
func (h *harness) setClientStatus(status string, finishedAt time.Time, allocs ...*structs.Allocation) {
	h.t.Helper()
	h.setClientStatusDesc(status, "", finishedAt, allocs...)
}

func (h *harness) setClientStatusDesc(status, desc string, finishedAt time.Time, allocs ...*structs.Allocation) {
	h.t.Helper()
	updates := make([]*structs.Allocation, len(allocs))
	for i, a := range allocs {
		updates[i] = &structs.Allocation{
			ID:                a.ID,
			ClientStatus:      status,
			ClientDescription: desc,
			TaskStates: map[string]*structs.TaskState{"t": {
				State:      structs.TaskStateDead,
				Failed:     status == structs.AllocClientStatusFailed,
				FinishedAt: finishedAt,
			}},
			ModifyTime: finishedAt.UnixNano(),
		}
	}
	must.NoError(h.t, h.store.UpdateAllocsFromClient(h.nextIndex(), updates))
}

func (h *harness) setNodeStatus(node *structs.Node, status string) {
	h.t.Helper()
	must.NoError(h.t, h.store.UpdateNodeStatus(h.nextIndex(), node.ID, status, h.now.UnixNano()))
}

var mockIDs atomic.Uint64

// mockID returns a UUID-shaped ID, unique in the test binary.
func mockID() string {
	n := mockIDs.Add(1)
	return fmt.Sprintf("%08x-%04x-4000-8000-%012x", n*2654435761%(1<<32), n%(1<<16), n)
}

// mockNode is a ready Linux node in dc1 with 4000 MHz and 8 GiB free for
// allocations, with the mock and raw_exec drivers.
func mockNode(i int) *structs.Node {
	name := fmt.Sprintf("node-%04d", i)
	return &structs.Node{
		ID:         mockID(),
		Name:       name,
		Datacenter: "dc1",
		NodePool:   structs.DefaultNodePool,
		Attributes: map[string]string{
			"kernel.name":     "linux",
			"cpu.arch":        "amd64",
			"unique.hostname": name,
			"os.version":      "22.04",
			"driver.raw_exec": "1",
		},
		Meta: map[string]string{"rack": fmt.Sprintf("r%d", i%4)},
		Drivers: map[string]*structs.DriverInfo{
			"mock":     {Detected: true, Healthy: true},
			"raw_exec": {Detected: true, Healthy: true},
		},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: 4100, TotalCpuCores: 4},
			Memory: structs.NodeMemoryResources{MemoryMB: 8448},
			Disk:   structs.NodeDiskResources{DiskMB: 100_000},
		},
		ReservedResources: &structs.NodeReservedResources{
			Cpu:    structs.NodeReservedCpuResources{CpuShares: 100},
			Memory: structs.NodeReservedMemoryResources{MemoryMB: 256},
		},
		SchedulingEligibility: structs.NodeSchedulingEligible,
		Status:                structs.NodeStatusReady,
	}
}

// mockJob is a canonical job of the given type with one group "g" of count
// allocations, each one mock task "t" asking for 500 MHz and 256 MiB.
func mockJob(jobType string, count int) *structs.Job {
	id := "job-" + mockID()[:8]
	job := &structs.Job{
		Namespace:   structs.DefaultNamespace,
		ID:          id,
		Type:        jobType,
		Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{
			Name:  "g",
			Count: count,
			Tasks: []*structs.Task{{
				Name:      "t",
				Driver:    "mock",
				Config:    map[string]any{"run_for": "10s"},
				Resources: &structs.Resources{CPU: 500, MemoryMB: 256},
			}},
		}},
	}
	job.Canonicalize()
	return job
}

func mockEval(job *structs.Job, trigger string) *structs.Evaluation {
	return &structs.Evaluation{
		ID:             mockID(),
		Namespace:      job.Namespace,
		Priority:       job.Priority,
		Type:           job.Type,
		TriggeredBy:    trigger,
		JobID:          job.ID,
		JobModifyIndex: job.JobModifyIndex,
		Status:         structs.EvalStatusPending,
	}
}

func allocIDs(allocs []*structs.Allocation) map[string]bool {
	ids := make(map[string]bool, len(allocs))
	for _, a := range allocs {
		ids[a.ID] = true
	}
	return ids
}

func planAllocs(byNode map[string][]*structs.Allocation) []*structs.Allocation {
	var out []*structs.Allocation
	for _, allocs := range byNode {
		out = append(out, allocs...)
	}
	return out
}

// The state store and its snapshots are what the server hands schedulers.
var (
	_ State = (*state.StateStore)(nil)
	_ State = (*state.StateSnapshot)(nil)
)
