package state

import (
	"fmt"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
)

// UpdateAllocsDesiredTransitions sets how the server wants allocations
// moved (the drainer marks them to migrate), leaving everything else as
// stored. IDs that are not stored are skipped.
func (s *StateStore) UpdateAllocsDesiredTransitions(index uint64, transitions map[string]structs.DesiredTransition) error {
	return s.write(func(txn *memdb.Txn) error {
		for id, tr := range transitions {
			err := updateAlloc(txn, id, func(alloc *structs.Allocation) {
				alloc.DesiredTransition = tr.Copy()
				alloc.ModifyIndex = index
				alloc.AllocModifyIndex = index
			})
			if err != nil {
				return fmt.Errorf("update desired transition of allocation %q: %w", id, err)
			}
		}
		return bumpIndex(txn, index, TableAllocs)
	})
}
