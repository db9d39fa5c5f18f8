package state

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// TableVariables holds Nomad Variables, sealed: a row's items are
// ciphertext under a root key of the keyring (structs.VariableEncrypted).
const TableVariables = "variables"

// recordVariable is the Persist record of a variable.
const recordVariable = "variable"

// indexKeyID indexes variables by the root key that sealed them.
const indexKeyID = "key_id"

// Refusals of a variable write where its entry lands. The leader checks
// the same before it proposes the entry; these catch what changed in
// between, and the leader then answers with the variable as it is.
var (
	// ErrVariableConflict: the check-and-set index is not the variable's.
	ErrVariableConflict = errors.New("variable check-and-set conflict")
	// ErrVariableLocked: the variable is locked and the write does not
	// hold the lock.
	ErrVariableLocked = errors.New("variable is locked")
	// ErrRootKeyInUse: a root key still seals variables.
	ErrRootKeyInUse = errors.New("the root key still encrypts variables")
	// ErrNamespaceHasVariables: a namespace deleted still holds
	// variables.
	ErrNamespaceHasVariables = errors.New("namespace has variables")
)

func variablesTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: TableVariables,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:    {Name: indexID, Unique: true, Indexer: namespaced("Path")},
			indexKeyID: {Name: indexKeyID, AllowMissing: true, Indexer: stringField("KeyID")},
		},
	}
}

// VariableWrite is one write of a variable, as a raft entry carries it.
type VariableWrite struct {
	Op string
	// Var is the variable written: its namespace and path, and, for a set
	// or a lock taken with items, its sealed items and the times of the
	// write. A lock taken carries the lock in Var.Lock.
	Var *structs.VariableEncrypted
	// CheckIndex, when set, is the ModifyIndex the variable must have (0:
	// it must not exist).
	CheckIndex *uint64 `json:",omitempty"`
	// LockID is the lock the writer holds: a write of a locked variable,
	// and a lock's release, must name it.
	LockID string `json:",omitempty"`
}

// ApplyVariableWrite applies w at index. A write refused by its check
// (ErrVariableConflict, ErrVariableLocked) changes nothing; so does the
// delete of a variable that does not exist.
func (s *StateStore) ApplyVariableWrite(index uint64, w *VariableWrite) error {
	if w == nil || w.Var == nil {
		return errors.New("variable write: no variable")
	}
	return s.write(func(txn *memdb.Txn) error {
		cur, err := variableIn(txn, w.Var.Namespace, w.Var.Path)
		if err != nil {
			return err
		}
		if err := CheckVariableWrite(w, cur); err != nil {
			return err
		}
		switch w.Op {
		case structs.VarOpSet:
			return setVariable(txn, index, w.Var, cur, lockOf(cur))
		case structs.VarOpLockAcquire:
			next := w.Var
			if next.Data == nil && cur != nil {
				next.VariableData = cur.VariableData
			}
			return setVariable(txn, index, next, cur, w.Var.Lock)
		case structs.VarOpLockRelease:
			next := cur.Copy()
			if w.Var.ModifyTime != 0 {
				next.ModifyTime = w.Var.ModifyTime
			}
			return setVariable(txn, index, next, cur, nil)
		case structs.VarOpDelete:
			if cur == nil {
				return nil
			}
			if err := txn.Delete(TableVariables, cur); err != nil {
				return fmt.Errorf("delete variable %q: %w", cur.Path, err)
			}
			return bumpIndex(txn, index, TableVariables)
		}
		return fmt.Errorf("variable write: unknown operation %q", w.Op)
	})
}

func lockOf(v *structs.VariableEncrypted) *structs.VariableLock {
	if v == nil {
		return nil
	}
	return v.Lock
}

// CheckVariableWrite says whether w may be applied to the variable as it
// is (cur, nil when there is none).
func CheckVariableWrite(w *VariableWrite, cur *structs.VariableEncrypted) error {
	if w.CheckIndex != nil {
		have := uint64(0)
		if cur != nil {
			have = cur.ModifyIndex
		}
		if have != *w.CheckIndex {
			return fmt.Errorf("%w: expected ModifyIndex %d, found %d", ErrVariableConflict, *w.CheckIndex, have)
		}
	}
	held := cur != nil && cur.Lock != nil
	switch w.Op {
	case structs.VarOpLockAcquire:
		if held {
			return fmt.Errorf("%w: %q is held by another lock", ErrVariableLocked, w.Var.Path)
		}
	case structs.VarOpLockRelease:
		if !held || cur.Lock.ID != w.LockID {
			return fmt.Errorf("%w: %q is not locked by lock %q", ErrVariableLocked, w.Var.Path, w.LockID)
		}
	case structs.VarOpDelete:
		if held {
			return fmt.Errorf("%w: %q: release the lock before deleting it", ErrVariableLocked, w.Var.Path)
		}
	default:
		if held && cur.Lock.ID != w.LockID {
			return fmt.Errorf("%w: %q may only be written by its lock's holder", ErrVariableLocked, w.Var.Path)
		}
	}
	return nil
}

// setVariable stores next, with lock, in place of cur.
func setVariable(txn *memdb.Txn, index uint64, next, cur *structs.VariableEncrypted, lock *structs.VariableLock) error {
	next.CreateIndex, next.ModifyIndex = index, index
	if cur != nil {
		next.CreateIndex, next.CreateTime = cur.CreateIndex, cur.CreateTime
	}
	next.Lock = lock
	if err := txn.Insert(TableVariables, next); err != nil {
		return fmt.Errorf("write variable %q: %w", next.Path, err)
	}
	return bumpIndex(txn, index, TableVariables)
}

// RekeyVariables stores variables sealed anew, each in place of the row
// whose ModifyIndex it carries; a variable written since then (with the
// active key already) or deleted is left alone. The rows keep their
// ModifyIndex: their items did not change.
func (s *StateStore) RekeyVariables(index uint64, vars []*structs.VariableEncrypted) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, v := range vars {
			cur, err := variableIn(txn, v.Namespace, v.Path)
			if err != nil {
				return err
			}
			if cur == nil || cur.ModifyIndex != v.ModifyIndex {
				continue
			}
			next := cur.Copy()
			next.VariableData = v.VariableData
			if err := txn.Insert(TableVariables, next); err != nil {
				return fmt.Errorf("rekey variable %q: %w", v.Path, err)
			}
		}
		return bumpIndex(txn, index, TableVariables)
	})
}

func variableIn(txn *memdb.Txn, namespace, path string) (*structs.VariableEncrypted, error) {
	raw, err := txn.First(TableVariables, indexID, namespace, path)
	if err != nil {
		return nil, fmt.Errorf("read variable %q: %w", path, err)
	}
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.VariableEncrypted), nil
}

// namespaceHasVariables refuses the deletion of a namespace that still
// holds variables.
func namespaceHasVariables(txn *memdb.Txn, name string) error {
	raw, err := txn.First(TableVariables, indexID+"_prefix", name, "")
	if err != nil {
		return fmt.Errorf("read variables of namespace %q: %w", name, err)
	}
	if raw != nil {
		return fmt.Errorf("delete namespace %q: %w, such as %q: purge them first (var purge)",
			name, ErrNamespaceHasVariables, raw.(*structs.VariableEncrypted).Path)
	}
	return nil
}

// rootKeyInUse refuses the removal of a key that still seals variables.
func rootKeyInUse(txn *memdb.Txn, keyID string) error {
	raw, err := txn.First(TableVariables, indexKeyID, keyID)
	if err != nil {
		return fmt.Errorf("read variables of root key %s: %w", keyID, err)
	}
	if raw != nil {
		v := raw.(*structs.VariableEncrypted)
		return fmt.Errorf("root key %s: %w, such as %q in namespace %q: rotate with full re-encryption first (operator root keyring rotate -full)",
			keyID, ErrRootKeyInUse, v.Path, v.Namespace)
	}
	return nil
}

// VariableByPath returns the sealed variable, or nil if there is none.
func (r *reader) VariableByPath(ws memdb.WatchSet, namespace, path string) (*structs.VariableEncrypted, error) {
	raw, err := r.first(ws, TableVariables, indexID, namespace, path)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "variable %q", path)
	}
	return raw.(*structs.VariableEncrypted), nil
}

// VariablesByPrefix returns the variables of namespace (AllNamespaces:
// of every namespace) whose path starts with prefix, sorted by namespace
// and path.
func (r *reader) VariablesByPrefix(ws memdb.WatchSet, namespace, prefix string) ([]*structs.VariableEncrypted, error) {
	var vars []*structs.VariableEncrypted
	var err error
	if namespace == AllNamespaces {
		vars, err = list[*structs.VariableEncrypted](r, ws, TableVariables, indexID)
	} else {
		vars, err = list[*structs.VariableEncrypted](r, ws, TableVariables, indexID+"_prefix", namespace, prefix)
	}
	if err != nil {
		return nil, wrapRead(err, "variables with prefix %q", prefix)
	}
	out := vars[:0]
	for _, v := range vars {
		if strings.HasPrefix(v.Path, prefix) {
			out = append(out, v)
		}
	}
	return out, nil
}

// VariablesByKeyID returns the variables sealed by the root key keyID.
func (r *reader) VariablesByKeyID(ws memdb.WatchSet, keyID string) ([]*structs.VariableEncrypted, error) {
	vars, err := list[*structs.VariableEncrypted](r, ws, TableVariables, indexKeyID, keyID)
	return vars, wrapRead(err, "variables of root key %s", keyID)
}
