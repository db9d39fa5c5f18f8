package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// SetAllocMaxRunOverride sets the budget of one running allocation
// (structs.Allocation.MaxRunOverride), leaving everything else as stored,
// and moves its AllocModifyIndex so that its client fetches it and re-arms
// the deadline. An ID that is not stored is skipped.
func (s *StateStore) SetAllocMaxRunOverride(index uint64, allocID string, o *structs.MaxRunOverride) error {
	if o == nil {
		return fmt.Errorf("set max_run_duration of allocation %q: no budget", allocID)
	}
	return s.write(func(txn *memdb.Txn) error {
		err := updateAlloc(txn, allocID, func(alloc *structs.Allocation) {
			c := *o
			alloc.MaxRunOverride = &c
			alloc.ModifyIndex = index
			alloc.AllocModifyIndex = index
		})
		if err != nil {
			return fmt.Errorf("set max_run_duration of allocation %q: %w", allocID, err)
		}
		return bumpIndex(txn, index, TableAllocs)
	})
}

// keptMaxRunOverride is the per-allocation budget an update of the stored
// allocation existing keeps: the stored one, which only
// SetAllocMaxRunOverride writes (the copy a plan carries may be older),
// unless the update's job version has another group max_run_duration than
// the one the budget was set over, which replaces it for good.
func keptMaxRunOverride(existing, alloc *structs.Allocation) *structs.MaxRunOverride {
	if existing.MaxRunOverride == nil {
		return nil
	}
	next := *alloc
	next.MaxRunOverride = existing.MaxRunOverride
	if !next.MaxRunOverrideApplies() {
		return nil
	}
	return existing.MaxRunOverride
}
