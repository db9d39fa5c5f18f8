package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// TableServices holds the service registrations clients make for their
// allocations' services.
const TableServices = "service_registrations"

// recordService is the Persist record of a service registration.
const recordService = "service_registration"

// Indexes of the services table besides id.
const (
	indexServiceName = "service_name"
	indexAlloc       = "alloc"
)

func servicesTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: TableServices,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:          {Name: indexID, Unique: true, Indexer: stringField("ID")},
			indexServiceName: {Name: indexServiceName, Indexer: namespaced("ServiceName")},
			indexNode:        {Name: indexNode, Indexer: stringField("NodeID")},
			indexAlloc:       {Name: indexAlloc, Indexer: stringField("AllocID")},
		},
	}
}

// UpsertServiceRegistrations stores registrations. One that changes
// nothing keeps its ModifyIndex, so that a client registering again after
// a restart does not wake every watcher. A registration of an allocation
// that is not stored, or is done on its client, is skipped: the removal
// that came with its end must not be undone by a late registration.
func (s *StateStore) UpsertServiceRegistrations(index uint64, regs []*structs.ServiceRegistration) error {
	return s.write(func(txn *memdb.Txn) error {
		changed := false
		for _, reg := range regs {
			ok, err := upsertService(txn, index, reg)
			if err != nil {
				return fmt.Errorf("upsert service registration %q: %w", reg.ID, err)
			}
			changed = changed || ok
		}
		if !changed {
			return nil
		}
		return bumpIndex(txn, index, TableServices)
	})
}

func upsertService(txn *memdb.Txn, index uint64, reg *structs.ServiceRegistration) (bool, error) {
	if err := reg.Validate(); err != nil {
		return false, err
	}
	alloc, err := txn.First(TableAllocs, indexID, reg.AllocID)
	if err != nil {
		return false, err
	}
	if alloc == nil || alloc.(*structs.Allocation).ClientTerminalStatus() {
		return false, nil
	}
	raw, err := txn.First(TableServices, indexID, reg.ID)
	if err != nil {
		return false, err
	}
	stored := *reg
	stored.CreateIndex, stored.ModifyIndex = index, index
	if raw != nil {
		cur := raw.(*structs.ServiceRegistration)
		if cur.Equal(reg) {
			return false, nil
		}
		stored.CreateIndex = cur.CreateIndex
	}
	return true, txn.Insert(TableServices, &stored)
}

// DeleteServiceRegistration removes the registration id of namespace.
// It answers ErrNotFound when there is none.
func (s *StateStore) DeleteServiceRegistration(index uint64, namespace, id string) error {
	return s.write(func(txn *memdb.Txn) error {
		raw, err := txn.First(TableServices, indexID, id)
		if err != nil {
			return fmt.Errorf("read service registration %q: %w", id, err)
		}
		if raw == nil || raw.(*structs.ServiceRegistration).Namespace != namespace {
			return fmt.Errorf("service registration %q: %w", id, ErrNotFound)
		}
		if err := txn.Delete(TableServices, raw); err != nil {
			return fmt.Errorf("delete service registration %q: %w", id, err)
		}
		return bumpIndex(txn, index, TableServices)
	})
}

// DeleteServiceRegistrationsByAlloc removes every registration of the
// allocations, as their client does when they stop.
func (s *StateStore) DeleteServiceRegistrationsByAlloc(index uint64, allocIDs []string) error {
	return s.write(func(txn *memdb.Txn) error {
		return deleteServicesBy(txn, index, indexAlloc, allocIDs)
	})
}

// deleteServicesBy removes the registrations that each of keys selects
// in index, bumping the table's index only if it removed one.
func deleteServicesBy(txn *memdb.Txn, index uint64, by string, keys []string) error {
	removed := 0
	for _, key := range keys {
		n, err := txn.DeleteAll(TableServices, by, key)
		if err != nil {
			return fmt.Errorf("delete service registrations of %s %q: %w", by, key, err)
		}
		removed += n
	}
	if removed == 0 {
		return nil
	}
	return bumpIndex(txn, index, TableServices)
}

// ServiceRegistrations returns every registration, by ID.
func (r *reader) ServiceRegistrations(ws memdb.WatchSet) ([]*structs.ServiceRegistration, error) {
	regs, err := list[*structs.ServiceRegistration](r, ws, TableServices, indexID)
	return regs, wrapRead(err, "service registrations")
}

// ServiceRegistrationsByName returns the registrations of the service
// name in namespace.
func (r *reader) ServiceRegistrationsByName(ws memdb.WatchSet, namespace, name string) ([]*structs.ServiceRegistration, error) {
	regs, err := list[*structs.ServiceRegistration](r, ws, TableServices, indexServiceName, namespace, name)
	return regs, wrapRead(err, "service %q", name)
}

// ServiceRegistrationsByNode returns the registrations a node made.
func (r *reader) ServiceRegistrationsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.ServiceRegistration, error) {
	regs, err := list[*structs.ServiceRegistration](r, ws, TableServices, indexNode, nodeID)
	return regs, wrapRead(err, "service registrations of node %q", nodeID)
}
