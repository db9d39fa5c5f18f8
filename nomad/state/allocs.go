package state

import (
	"errors"
	"fmt"
	"slices"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
)

// UpsertAllocs stores allocations written by the server (plans, node
// failures), taking ownership of them.
//
// An allocation without a Job gets one attached: plans leave it out to stay
// small. A stopping allocation keeps the job it already runs; any other
// gets the job currently stored.
//
// An update of a stored allocation keeps what the client owns and what
// must not move: CreateIndex, CreateTime (the anchor of max_run_duration),
// TaskStates, ClientStatus with ClientDescription, unless the server
// declares the allocation lost or unknown, and MaxRunOverride, unless the
// update's job changed the group's max_run_duration. The scheduler works from a
// snapshot, so the client status in a plan may be older than the stored
// one. ModifyIndex and AllocModifyIndex become index. A new allocation
// without statuses starts desired "run" and client "pending".
func (s *StateStore) UpsertAllocs(index uint64, allocs []*structs.Allocation) error {
	for i, alloc := range allocs {
		if err := checkAlloc(alloc); err != nil {
			return fmt.Errorf("upsert allocation %d: %w", i, err)
		}
	}
	// The allocations of a plan have much in common; decoded, each has
	// its own copy of it.
	var d structs.Dedup
	for _, alloc := range allocs {
		d.Allocation(alloc)
	}
	return s.write(func(txn *memdb.Txn) error {
		for _, alloc := range allocs {
			if err := upsertAlloc(txn, index, alloc); err != nil {
				return fmt.Errorf("upsert allocation %q: %w", alloc.ID, err)
			}
		}
		return bumpIndex(txn, index, TableAllocs)
	})
}

func checkAlloc(alloc *structs.Allocation) error {
	switch {
	case alloc == nil:
		return errors.New("allocation is nil")
	case alloc.ID == "":
		return errors.New("allocation has no ID")
	case alloc.Namespace == "":
		return fmt.Errorf("allocation %q has no namespace", alloc.ID)
	case alloc.JobID == "":
		return fmt.Errorf("allocation %q has no job ID", alloc.ID)
	}
	return nil
}

func upsertAlloc(txn *memdb.Txn, index uint64, alloc *structs.Allocation) error {
	raw, err := txn.First(TableAllocs, indexID, alloc.ID)
	if err != nil {
		return err
	}
	var existing *structs.Allocation
	if raw != nil {
		existing = raw.(*structs.Allocation)
	}
	if err := attachJob(txn, alloc, existing); err != nil {
		return err
	}
	alloc.ModifyIndex = index
	alloc.AllocModifyIndex = index
	if existing == nil {
		alloc.CreateIndex = index
		if alloc.DesiredStatus == "" {
			alloc.DesiredStatus = structs.AllocDesiredStatusRun
		}
		if alloc.ClientStatus == "" {
			alloc.ClientStatus = structs.AllocClientStatusPending
		}
		return txn.Insert(TableAllocs, alloc)
	}
	alloc.CreateIndex = existing.CreateIndex
	if existing.CreateTime != 0 {
		alloc.CreateTime = existing.CreateTime
	}
	if alloc.ModifyTime == 0 {
		alloc.ModifyTime = existing.ModifyTime
	}
	alloc.TaskStates = existing.TaskStates
	// The health the client reported in the allocation's deployment is
	// newer than the scheduler's snapshot; an in-place update that moves
	// the allocation to another deployment starts its health afresh.
	if alloc.DeploymentID == existing.DeploymentID {
		alloc.DeploymentStatus = existing.DeploymentStatus
	}
	alloc.MaxRunOverride = keptMaxRunOverride(existing, alloc)
	switch alloc.ClientStatus {
	case structs.AllocClientStatusLost, structs.AllocClientStatusUnknown:
	default:
		alloc.ClientStatus = existing.ClientStatus
		alloc.ClientDescription = existing.ClientDescription
	}
	return txn.Insert(TableAllocs, alloc)
}

// attachJob gives an allocation without a job the one it should run.
func attachJob(txn *memdb.Txn, alloc, existing *structs.Allocation) error {
	if alloc.Job != nil {
		return nil
	}
	if existing != nil && existing.Job != nil && alloc.TerminalStatus() {
		alloc.Job = existing.Job
		return nil
	}
	raw, err := txn.First(TableJobs, indexID, alloc.Namespace, alloc.JobID)
	if err != nil {
		return fmt.Errorf("read job %q: %w", alloc.JobID, err)
	}
	switch {
	case raw != nil:
		alloc.Job = raw.(*structs.Job)
	case existing != nil && existing.Job != nil:
		alloc.Job = existing.Job
	default:
		return fmt.Errorf("has no job, and job %q is not in namespace %q", alloc.JobID, alloc.Namespace)
	}
	return nil
}

// UpdateAllocsFromClient applies what a client reports about its
// allocations: ClientStatus, ClientDescription, TaskStates and, when set,
// NetworkStatus and ModifyTime. Nothing else of the stored allocation changes, and IDs that
// are not stored (already garbage collected) are skipped.
func (s *StateStore) UpdateAllocsFromClient(index uint64, allocs []*structs.Allocation) error {
	for i, alloc := range allocs {
		if alloc == nil || alloc.ID == "" {
			return fmt.Errorf("update allocation %d from client: no allocation ID", i)
		}
	}
	// A client's tasks report the same events, in the same words.
	var d structs.Dedup
	for _, update := range allocs {
		d.TaskStates(update.TaskStates)
	}
	return s.write(func(txn *memdb.Txn) error {
		for _, update := range allocs {
			err := updateAlloc(txn, update.ID, func(alloc *structs.Allocation) {
				alloc.ClientStatus = d.String(update.ClientStatus)
				alloc.ClientDescription = d.String(update.ClientDescription)
				alloc.TaskStates = update.TaskStates
				if update.NetworkStatus != nil {
					alloc.NetworkStatus = update.NetworkStatus
				}
				// The client decides an allocation's health in its
				// deployment once; a later report does not undo it.
				if ds := update.DeploymentStatus; ds.HasHealth() && alloc.DeploymentID != "" && !alloc.DeploymentStatus.HasHealth() {
					alloc.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: clonePtr(ds.Healthy), Timestamp: ds.Timestamp, ModifyIndex: index}
				}
				if update.ModifyTime != 0 {
					alloc.ModifyTime = update.ModifyTime
				}
				alloc.ModifyIndex = index
			})
			if err != nil {
				return fmt.Errorf("update allocation %q from client: %w", update.ID, err)
			}
			// An allocation its client is done with serves no service.
			if update.ClientTerminalStatus() {
				if err := deleteServicesBy(txn, index, indexAlloc, []string{update.ID}); err != nil {
					return err
				}
			}
		}
		return bumpIndex(txn, index, TableAllocs)
	})
}

// UpdateAllocDesiredStatus sets what the server wants of allocations, such
// as stopping them. IDs that are not stored are skipped.
func (s *StateStore) UpdateAllocDesiredStatus(index uint64, allocIDs []string, desired, desc string) error {
	switch desired {
	case structs.AllocDesiredStatusRun, structs.AllocDesiredStatusStop, structs.AllocDesiredStatusEvict:
	default:
		return fmt.Errorf("update desired status of allocations: unknown status %q", desired)
	}
	return s.write(func(txn *memdb.Txn) error {
		for _, id := range allocIDs {
			err := updateAlloc(txn, id, func(alloc *structs.Allocation) {
				alloc.DesiredStatus = desired
				alloc.DesiredDescription = desc
				alloc.ModifyIndex = index
				alloc.AllocModifyIndex = index
			})
			if err != nil {
				return fmt.Errorf("update desired status of allocation %q: %w", id, err)
			}
		}
		return bumpIndex(txn, index, TableAllocs)
	})
}

// updateAlloc replaces a stored allocation by a copy that change modified.
// It does nothing if the allocation is not stored.
func updateAlloc(txn *memdb.Txn, id string, change func(*structs.Allocation)) error {
	raw, err := txn.First(TableAllocs, indexID, id)
	if err != nil || raw == nil {
		return err
	}
	updated := *raw.(*structs.Allocation)
	change(&updated)
	return txn.Insert(TableAllocs, &updated)
}

// AllocByID returns the allocation, or nil if there is none.
func (r *reader) AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error) {
	raw, err := r.first(ws, TableAllocs, indexID, id)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "allocation %q", id)
	}
	return raw.(*structs.Allocation), nil
}

// AllocsByIDPrefix returns the allocations of namespace (every namespace
// for AllNamespaces) whose ID starts with prefix, sorted by ID.
func (r *reader) AllocsByIDPrefix(ws memdb.WatchSet, namespace, prefix string) ([]*structs.Allocation, error) {
	allocs, err := list[*structs.Allocation](r, ws, TableAllocs, indexID+"_prefix", prefix)
	if err != nil {
		return nil, wrapRead(err, "allocations with prefix %q", prefix)
	}
	return inNamespace(allocs, namespace, func(a *structs.Allocation) string { return a.Namespace }), nil
}

// Allocs returns every allocation, sorted by ID.
func (r *reader) Allocs(ws memdb.WatchSet) ([]*structs.Allocation, error) {
	allocs, err := list[*structs.Allocation](r, ws, TableAllocs, indexID)
	return allocs, wrapRead(err, "allocations")
}

// AllocsByJob returns the allocations of a job, of every version.
func (r *reader) AllocsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Allocation, error) {
	allocs, err := list[*structs.Allocation](r, ws, TableAllocs, indexJob, namespace, jobID)
	return allocs, wrapRead(err, "allocations of job %q in namespace %q", jobID, namespace)
}

// AllocsByNode returns the allocations placed on a node.
func (r *reader) AllocsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error) {
	allocs, err := list[*structs.Allocation](r, ws, TableAllocs, indexNode, nodeID)
	return allocs, wrapRead(err, "allocations of node %q", nodeID)
}

// AllocsByEval returns the allocations an evaluation placed or updated,
// sorted by ID: those of its job that name it. A job has few evaluations
// and may have thousands of allocations, so the store keeps no index of
// allocations by evaluation (it cost a radix-tree entry, about 470 bytes,
// per allocation); the allocations of an evaluation no longer stored are
// found by a scan of them all.
func (r *reader) AllocsByEval(ws memdb.WatchSet, evalID string) ([]*structs.Allocation, error) {
	eval, err := r.EvalByID(ws, evalID)
	if err != nil {
		return nil, err
	}
	var allocs []*structs.Allocation
	if eval != nil {
		allocs, err = r.AllocsByJob(ws, eval.Namespace, eval.JobID)
	} else {
		allocs, err = r.Allocs(ws)
	}
	if err != nil {
		return nil, wrapRead(err, "allocations of evaluation %q", evalID)
	}
	return slices.DeleteFunc(allocs, func(a *structs.Allocation) bool { return a.EvalID != evalID }), nil
}
