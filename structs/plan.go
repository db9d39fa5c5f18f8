package structs

// Plan is what a scheduler asks the server to commit for one evaluation:
// allocations to stop and allocations to place or update.
//
// The plan applier checks the plan against the latest state before it
// commits it. It may reject part of a plan (for example the changes on a
// node whose capacity was taken by another plan meanwhile); the PlanResult
// says what was committed, and the scheduler retries the rest against a
// refreshed state.
//
// Allocations in a plan follow these rules, so that plans stay small:
//   - NodeUpdate holds stops: copies of stored allocations with
//     DesiredStatus stop and a DesiredDescription, and ClientStatus lost
//     when the server declares them lost. Their Job is nil: a stopped
//     allocation keeps the job it runs.
//   - NodeAllocation holds new placements, whose Job is nil: they run
//     plan.Job, which the applier attaches before committing. It also holds
//     updates of stored allocations (same ID), whose Job is set: in-place
//     updates to a new job version carry that version, and annotations of
//     failed allocations (FollowupEvalID) carry the job they already run.
//     Updates of terminal allocations hold no resources.
type Plan struct {
	EvalID   string
	Priority int
	Job      *Job

	// NodeUpdate maps a node ID to the allocations on it to stop.
	NodeUpdate map[string][]*Allocation

	// NodeAllocation maps a node ID to the allocations to place on it or
	// to update in place.
	NodeAllocation map[string][]*Allocation

	// AllAtOnce asks the applier to commit all of the plan or none of it.
	AllAtOnce bool

	// SnapshotIndex is the state index the scheduler read; the applier
	// may use it to tell how stale the plan is.
	SnapshotIndex uint64

	// Deployment, when set, is a deployment the plan creates: its
	// placements name it. DeploymentUpdates end others (a newer job
	// version cancels the deployment of an older one).
	Deployment        *Deployment               `json:",omitempty"`
	DeploymentUpdates []*DeploymentStatusUpdate `json:",omitempty"`
}

// AppendStoppedAlloc adds a stop of alloc to the plan and returns the
// stopping copy, which the caller may annotate further (NextAllocation).
// clientStatus, when not empty, overrides the client status (lost).
func (p *Plan) AppendStoppedAlloc(alloc *Allocation, desc, clientStatus string) *Allocation {
	stopped := *alloc
	stopped.Job = nil
	stopped.DesiredStatus = AllocDesiredStatusStop
	stopped.DesiredDescription = desc
	if clientStatus != "" {
		stopped.ClientStatus = clientStatus
	}
	if p.NodeUpdate == nil {
		p.NodeUpdate = make(map[string][]*Allocation)
	}
	p.NodeUpdate[alloc.NodeID] = append(p.NodeUpdate[alloc.NodeID], &stopped)
	return &stopped
}

// AppendAlloc adds a placement or an in-place update to the plan.
func (p *Plan) AppendAlloc(alloc *Allocation) {
	if p.NodeAllocation == nil {
		p.NodeAllocation = make(map[string][]*Allocation)
	}
	p.NodeAllocation[alloc.NodeID] = append(p.NodeAllocation[alloc.NodeID], alloc)
}

// IsNoOp reports whether the plan changes nothing.
func (p *Plan) IsNoOp() bool {
	return countAllocs(p.NodeUpdate) == 0 && countAllocs(p.NodeAllocation) == 0 &&
		p.Deployment == nil && len(p.DeploymentUpdates) == 0
}

// PlanResult is what the applier committed of a plan.
type PlanResult struct {
	NodeUpdate     map[string][]*Allocation
	NodeAllocation map[string][]*Allocation

	// AllocIndex is the raft index at which the allocations were written.
	AllocIndex uint64

	// RefreshIndex, when the plan was not fully committed, is the state
	// index the scheduler must read at least before it retries.
	RefreshIndex uint64
}

// FullCommit reports whether every allocation of plan was committed, with
// how many the plan held and how many were committed.
func (r *PlanResult) FullCommit(plan *Plan) (full bool, expected, actual int) {
	expected = countAllocs(plan.NodeUpdate) + countAllocs(plan.NodeAllocation)
	if r != nil {
		actual = countAllocs(r.NodeUpdate) + countAllocs(r.NodeAllocation)
	}
	return actual == expected, expected, actual
}

func countAllocs(byNode map[string][]*Allocation) int {
	n := 0
	for _, allocs := range byNode {
		n += len(allocs)
	}
	return n
}
