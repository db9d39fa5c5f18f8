package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"
)

// reader holds the read methods shared by the live store and its
// snapshots. Each read runs in its own read transaction and returns the
// stored objects themselves, which callers must not modify.
type reader struct {
	db *memdb.MemDB
}

func (r *reader) txn() *memdb.Txn {
	return r.db.Txn(false)
}

// Index returns the raft index of the latest write to table, or 0 if the
// table has never been written.
func (r *reader) Index(table string) (uint64, error) {
	raw, err := r.txn().First(TableIndex, indexID, table)
	if err != nil {
		return 0, fmt.Errorf("read index of table %s: %w", table, err)
	}
	if raw == nil {
		return 0, nil
	}
	return raw.(*indexEntry).Value, nil
}

// LatestIndex returns the raft index of the latest write to any table.
func (r *reader) LatestIndex() (uint64, error) {
	return r.LatestIndexWatch(nil)
}

// LatestIndexWatch is LatestIndex, adding to ws (when not nil) a channel
// that fires on the next write to any table.
func (r *reader) LatestIndexWatch(ws memdb.WatchSet) (uint64, error) {
	it, err := r.txn().Get(TableIndex, indexID)
	if err != nil {
		return 0, fmt.Errorf("read table indexes: %w", err)
	}
	if ws != nil {
		ws.Add(it.WatchCh())
	}
	var latest uint64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if e := raw.(*indexEntry); e.Key != appliedKey {
			latest = max(latest, e.Value)
		}
	}
	return latest, nil
}

// first returns the single object that args select in index of table, or
// nil, adding its watch channel to ws.
func (r *reader) first(ws memdb.WatchSet, table, index string, args ...any) (any, error) {
	watchCh, raw, err := r.txn().FirstWatch(table, index, args...)
	if err != nil {
		return nil, err
	}
	ws.Add(watchCh)
	return raw, nil
}

// list returns every object that args select in index of table, adding
// the watch channel of the range it read to ws.
func list[T any](r *reader, ws memdb.WatchSet, table, index string, args ...any) ([]T, error) {
	it, err := r.txn().Get(table, index, args...)
	if err != nil {
		return nil, err
	}
	ws.Add(it.WatchCh())
	var out []T
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(T))
	}
	return out, nil
}
