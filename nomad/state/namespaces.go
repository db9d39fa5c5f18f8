package state

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// ErrNamespaceInUse is wrapped by a delete of a namespace that still has
// jobs.
var ErrNamespaceInUse = errors.New("namespace has jobs")

// insertDefaultNamespace puts the default namespace in a fresh store, at
// index 1, without recording a write: it is there from the start.
func insertDefaultNamespace(db *memdb.MemDB) error {
	txn := db.Txn(true)
	defer txn.Abort()
	ns := structs.DefaultNamespaceObject()
	ns.CreateIndex, ns.ModifyIndex = 1, 1
	if err := txn.Insert(TableNamespaces, ns); err != nil {
		return fmt.Errorf("insert the default namespace: %w", err)
	}
	txn.Commit()
	return nil
}

// UpsertNamespaces creates or replaces namespaces, taking ownership of
// them. A replaced namespace keeps its CreateIndex.
func (s *StateStore) UpsertNamespaces(index uint64, namespaces []*structs.Namespace) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, ns := range namespaces {
			if err := upsertNamespace(txn, index, ns); err != nil {
				return err
			}
		}
		return bumpIndex(txn, index, TableNamespaces)
	})
}

func upsertNamespace(txn *memdb.Txn, index uint64, ns *structs.Namespace) error {
	if ns == nil || ns.Name == "" {
		return errors.New("upsert namespace: namespace is nil or has no name")
	}
	raw, err := txn.First(TableNamespaces, indexID, ns.Name)
	if err != nil {
		return fmt.Errorf("read namespace %q: %w", ns.Name, err)
	}
	ns.CreateIndex = index
	if raw != nil {
		ns.CreateIndex = raw.(*structs.Namespace).CreateIndex
	}
	ns.ModifyIndex = index
	if err := txn.Insert(TableNamespaces, ns); err != nil {
		return fmt.Errorf("upsert namespace %q: %w", ns.Name, err)
	}
	return nil
}

// DeleteNamespaces removes namespaces. The default namespace cannot be
// deleted, nor one that has a job (of any status: a job leaves its
// namespace when it is purged). A name that is not stored is an
// ErrNotFound error. On any error nothing is deleted.
func (s *StateStore) DeleteNamespaces(index uint64, names []string) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, name := range names {
			if err := deleteNamespace(txn, name); err != nil {
				return err
			}
		}
		return bumpIndex(txn, index, TableNamespaces)
	})
}

func deleteNamespace(txn *memdb.Txn, name string) error {
	if name == structs.DefaultNamespace {
		return errors.New("the default namespace cannot be deleted")
	}
	job, err := txn.First(TableJobs, indexID+"_prefix", name, "")
	if err != nil {
		return fmt.Errorf("read jobs of namespace %q: %w", name, err)
	}
	if job != nil {
		return fmt.Errorf("delete namespace %q: %w, such as %q: purge them first (job stop -purge)",
			name, ErrNamespaceInUse, job.(*structs.Job).ID)
	}
	if err := namespaceHasVariables(txn, name); err != nil {
		return err
	}
	n, err := txn.DeleteAll(TableNamespaces, indexID, name)
	if err != nil {
		return fmt.Errorf("delete namespace %q: %w", name, err)
	}
	if n == 0 {
		return fmt.Errorf("delete namespace %q: %w", name, ErrNotFound)
	}
	return nil
}

// NamespaceByName returns the namespace, or nil if there is none.
func (r *reader) NamespaceByName(ws memdb.WatchSet, name string) (*structs.Namespace, error) {
	raw, err := r.first(ws, TableNamespaces, indexID, name)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "namespace %q", name)
	}
	return raw.(*structs.Namespace), nil
}

// NamespacesByNamePrefix returns the namespaces whose name starts with
// prefix, sorted by name.
func (r *reader) NamespacesByNamePrefix(ws memdb.WatchSet, prefix string) ([]*structs.Namespace, error) {
	namespaces, err := list[*structs.Namespace](r, ws, TableNamespaces, indexID+"_prefix", prefix)
	return namespaces, wrapRead(err, "namespaces with prefix %q", prefix)
}

// namespaceExists reports whether txn holds the namespace.
func namespaceExists(txn *memdb.Txn, name string) (bool, error) {
	raw, err := txn.First(TableNamespaces, indexID, name)
	if err != nil {
		return false, fmt.Errorf("read namespace %q: %w", name, err)
	}
	return raw != nil, nil
}
