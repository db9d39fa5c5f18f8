package state

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// TableRootKeys holds the keyring: the root keys that sign and verify
// workload identities, with their private halves.
const TableRootKeys = "root_keys"

// recordRootKey is the Persist record of a root key.
const recordRootKey = "root_key"

// ErrActiveRootKey is wrapped by a delete of the active root key: the
// keyring always keeps one key that signs.
var ErrActiveRootKey = errors.New("the active root key cannot be removed: rotate first")

func rootKeysTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: TableRootKeys,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: stringField("KeyID")},
		},
	}
}

// UpsertRootKey stores key, taking ownership of it. An active key makes
// every other key inactive, so that exactly one signs. With ifEmpty (the
// key made at first leadership) nothing is written when the keyring
// already holds a key: two leaders in a row that both found it empty end
// with one key, the first one applied.
func (s *StateStore) UpsertRootKey(index uint64, key *structs.RootKey, ifEmpty bool) error {
	if key == nil || key.KeyID == "" {
		return errors.New("upsert root key: key is nil or has no ID")
	}
	return s.write(func(txn *memdb.Txn) error {
		keys, err := rootKeys(txn)
		if err != nil {
			return err
		}
		if ifEmpty && len(keys) > 0 {
			return nil
		}
		key.CreateIndex, key.ModifyIndex = index, index
		for _, k := range keys {
			if k.KeyID == key.KeyID {
				key.CreateIndex = k.CreateIndex
				continue
			}
			if key.Active() && k.Active() {
				inactive := *k
				inactive.State = structs.RootKeyStateInactive
				inactive.ModifyIndex = index
				if err := txn.Insert(TableRootKeys, &inactive); err != nil {
					return fmt.Errorf("deactivate root key %s: %w", k.KeyID, err)
				}
			}
		}
		if err := txn.Insert(TableRootKeys, key); err != nil {
			return fmt.Errorf("upsert root key %s: %w", key.KeyID, err)
		}
		return bumpIndex(txn, index, TableRootKeys)
	})
}

// DeleteRootKey removes an inactive root key. The active key cannot be
// removed (ErrActiveRootKey), nor one that still seals variables
// (ErrRootKeyInUse); a key that is not stored is ErrNotFound.
func (s *StateStore) DeleteRootKey(index uint64, keyID string) error {
	return s.write(func(txn *memdb.Txn) error {
		raw, err := txn.First(TableRootKeys, indexID, keyID)
		if err != nil {
			return fmt.Errorf("read root key %s: %w", keyID, err)
		}
		if raw == nil {
			return fmt.Errorf("root key %s: %w", keyID, ErrNotFound)
		}
		if raw.(*structs.RootKey).Active() {
			return fmt.Errorf("root key %s: %w", keyID, ErrActiveRootKey)
		}
		if err := rootKeyInUse(txn, keyID); err != nil {
			return err
		}
		if err := txn.Delete(TableRootKeys, raw); err != nil {
			return fmt.Errorf("delete root key %s: %w", keyID, err)
		}
		return bumpIndex(txn, index, TableRootKeys)
	})
}

// RootKeys returns the keyring, oldest key first.
func (r *reader) RootKeys(ws memdb.WatchSet) ([]*structs.RootKey, error) {
	keys, err := list[*structs.RootKey](r, ws, TableRootKeys, indexID)
	sortRootKeys(keys)
	return keys, wrapRead(err, "root keys")
}

// RootKeyByID returns the root key, or nil if there is none.
func (r *reader) RootKeyByID(ws memdb.WatchSet, keyID string) (*structs.RootKey, error) {
	raw, err := r.first(ws, TableRootKeys, indexID, keyID)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "root key %s", keyID)
	}
	return raw.(*structs.RootKey), nil
}

// ActiveRootKey returns the key that signs, or nil before the keyring is
// initialised.
func (r *reader) ActiveRootKey(ws memdb.WatchSet) (*structs.RootKey, error) {
	keys, err := r.RootKeys(ws)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.Active() {
			return k, nil
		}
	}
	return nil, nil
}

func rootKeys(txn *memdb.Txn) ([]*structs.RootKey, error) {
	it, err := txn.Get(TableRootKeys, indexID)
	if err != nil {
		return nil, fmt.Errorf("read root keys: %w", err)
	}
	var keys []*structs.RootKey
	for raw := it.Next(); raw != nil; raw = it.Next() {
		keys = append(keys, raw.(*structs.RootKey))
	}
	return keys, nil
}

// sortRootKeys orders keys by creation, then ID.
func sortRootKeys(keys []*structs.RootKey) {
	slices.SortFunc(keys, func(a, b *structs.RootKey) int {
		return cmp.Or(cmp.Compare(a.CreateIndex, b.CreateIndex), strings.Compare(a.KeyID, b.KeyID))
	})
}
