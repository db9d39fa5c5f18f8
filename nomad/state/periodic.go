package state

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-memdb"
)

// UpsertPeriodicLaunch records a periodic job's latest launch, taking
// ownership of l. CreateIndex is kept from the stored record.
func (s *StateStore) UpsertPeriodicLaunch(index uint64, l *PeriodicLaunch) error {
	switch {
	case l == nil:
		return errors.New("upsert periodic launch: launch is nil")
	case l.ID == "":
		return errors.New("upsert periodic launch: launch has no job ID")
	case l.Namespace == "":
		return fmt.Errorf("upsert periodic launch of job %q: no namespace", l.ID)
	}
	return s.write(func(txn *memdb.Txn) error {
		raw, err := txn.First(TablePeriodicLaunch, indexID, l.Namespace, l.ID)
		if err != nil {
			return fmt.Errorf("read periodic launch of job %q: %w", l.ID, err)
		}
		l.CreateIndex = index
		if raw != nil {
			l.CreateIndex = raw.(*PeriodicLaunch).CreateIndex
		}
		l.ModifyIndex = index
		if err := txn.Insert(TablePeriodicLaunch, l); err != nil {
			return fmt.Errorf("upsert periodic launch of job %q: %w", l.ID, err)
		}
		return bumpIndex(txn, index, TablePeriodicLaunch)
	})
}

// PeriodicLaunchByID returns a periodic job's latest launch, or nil if it
// has none.
func (r *reader) PeriodicLaunchByID(ws memdb.WatchSet, namespace, id string) (*PeriodicLaunch, error) {
	raw, err := r.first(ws, TablePeriodicLaunch, indexID, namespace, id)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "periodic launch of job %q in namespace %q", id, namespace)
	}
	return raw.(*PeriodicLaunch), nil
}

// PeriodicLaunches returns every periodic launch, sorted by namespace and
// job ID.
func (r *reader) PeriodicLaunches(ws memdb.WatchSet) ([]*PeriodicLaunch, error) {
	launches, err := list[*PeriodicLaunch](r, ws, TablePeriodicLaunch, indexID)
	return launches, wrapRead(err, "periodic launches")
}
