package state

import (
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-memdb"
)

// ErrNotFound is wrapped by writes that update one object that is not in
// the store (a node's status, a job's status).
var ErrNotFound = errors.New("not found")

// errReadOnly is returned by writes on the read-only view a blocking query
// runs against.
var errReadOnly = errors.New("state store view is read-only")

// StateStore holds the server's state. It is safe for any number of
// concurrent readers and one writer, the FSM.
type StateStore struct {
	reader

	// readOnly marks the point-in-time views that BlockingQuery hands to
	// its query: they share the live store's abandon signal but take no
	// writes.
	readOnly bool
	abandon  *abandonSignal

	// changes, while RecordChanges runs, collects what each write
	// changed. Only the store's one writer touches it.
	changes *memdb.Changes
}

// abandonSignal is closed once, when the store is replaced by a restore.
type abandonSignal struct {
	once sync.Once
	ch   chan struct{}
}

// NewStateStore returns an empty store.
func NewStateStore() (*StateStore, error) {
	db, err := memdb.NewMemDB(schema())
	if err != nil {
		return nil, fmt.Errorf("create state store: %w", err)
	}
	if err := insertDefaultNamespace(db); err != nil {
		return nil, fmt.Errorf("create state store: %w", err)
	}
	return &StateStore{
		reader:  reader{db: db},
		abandon: &abandonSignal{ch: make(chan struct{})},
	}, nil
}

// AbandonCh is closed when the store has been replaced by a restored one.
// Blocking queries watch it, and must then retry on the new store.
func (s *StateStore) AbandonCh() <-chan struct{} {
	return s.abandon.ch
}

// Abandon closes AbandonCh. The FSM calls it on the old store after it has
// swapped in the store that Restore built. Calling it again does nothing.
func (s *StateStore) Abandon() {
	s.abandon.once.Do(func() { close(s.abandon.ch) })
}

// view returns a read-only StateStore fixed at the current state. Watch
// channels gathered from it still fire on later writes to the live store.
func (s *StateStore) view() *StateStore {
	return &StateStore{
		reader:   reader{db: s.db.Snapshot()},
		readOnly: true,
		abandon:  s.abandon,
	}
}

// write runs fn in one write transaction and commits it if fn succeeds.
func (s *StateStore) write(fn func(txn *memdb.Txn) error) error {
	if s.readOnly {
		return errReadOnly
	}
	txn := s.db.Txn(true)
	defer txn.Abort()
	if s.changes != nil {
		txn.TrackChanges()
	}
	if err := fn(txn); err != nil {
		return err
	}
	if s.changes != nil {
		*s.changes = append(*s.changes, txn.Changes()...)
	}
	txn.Commit()
	return nil
}

// RecordChanges runs apply, a sequence of writes to the store, and returns
// every object they added, updated or deleted, in the order written, with
// its version before and after (the stored objects themselves: read-only).
// The FSM derives the event stream from them. Only the store's writer may
// call it, and not from within apply.
func (s *StateStore) RecordChanges(apply func() error) (memdb.Changes, error) {
	var changes memdb.Changes
	s.changes = &changes
	defer func() { s.changes = nil }()
	err := apply()
	return changes, err
}

// bumpIndex records that index wrote each of tables. A table's index never
// goes back: raft indexes only grow, and a stale one must not hide a write.
func bumpIndex(txn *memdb.Txn, index uint64, tables ...string) error {
	for _, table := range tables {
		raw, err := txn.First(TableIndex, indexID, table)
		if err != nil {
			return fmt.Errorf("read index of table %s: %w", table, err)
		}
		if raw != nil && raw.(*indexEntry).Value >= index {
			continue
		}
		if err := txn.Insert(TableIndex, &indexEntry{Key: table, Value: index}); err != nil {
			return fmt.Errorf("update index of table %s: %w", table, err)
		}
	}
	return nil
}
