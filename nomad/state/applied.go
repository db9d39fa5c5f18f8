package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"
)

// appliedKey is the row of the index table that holds the raft index of
// the last log entry the FSM has finished applying. An entry may write
// several tables in turn, each in a transaction of its own, so a table's
// index says that part of an entry is in the store; this row, written
// after the whole entry, says that all of it is. It is not a table:
// LatestIndex leaves it out.
const appliedKey = "_applied"

// SetAppliedIndex records that the FSM has finished applying the log entry
// at index, whatever it wrote, if anything. Like a table's index, it never
// goes back.
func (s *StateStore) SetAppliedIndex(index uint64) error {
	return s.write(func(txn *memdb.Txn) error {
		return bumpIndex(txn, index, appliedKey)
	})
}

// AppliedIndex returns the raft index of the last log entry applied in
// full (0 before the first), adding to ws (when not nil) a channel that
// fires when it moves. It is never the index of an entry applied in part:
// a table's index may be.
func (r *reader) AppliedIndex(ws memdb.WatchSet) (uint64, error) {
	watchCh, raw, err := r.txn().FirstWatch(TableIndex, indexID, appliedKey)
	if err != nil {
		return 0, fmt.Errorf("read applied index: %w", err)
	}
	if ws != nil {
		ws.Add(watchCh)
	}
	if raw == nil {
		return 0, nil
	}
	return raw.(*indexEntry).Value, nil
}

// restoreAppliedIndex records, in a store restored from a snapshot taken
// before the applied index was recorded, its latest table index as the
// applied index: a snapshot holds whole entries.
func restoreAppliedIndex(txn *memdb.Txn) error {
	raw, err := txn.First(TableIndex, indexID, appliedKey)
	if err != nil || raw != nil {
		return err
	}
	it, err := txn.Get(TableIndex, indexID)
	if err != nil {
		return err
	}
	var latest uint64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		latest = max(latest, raw.(*indexEntry).Value)
	}
	if latest == 0 {
		return nil
	}
	return txn.Insert(TableIndex, &indexEntry{Key: appliedKey, Value: latest})
}
