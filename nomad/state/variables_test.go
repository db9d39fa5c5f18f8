package state

import (
	"bytes"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func sealedVar(t *testing.T, key *structs.RootKey, path string, items structs.VariableItems) *structs.VariableEncrypted {
	t.Helper()
	v, err := structs.SealVariable(key, &structs.VariableDecrypted{
		VariableMetadata: structs.VariableMetadata{Namespace: structs.DefaultNamespace, Path: path, CreateTime: 1, ModifyTime: 1},
		Items:            items,
	})
	must.NoError(t, err)
	return v
}

func set(t *testing.T, s *StateStore, index uint64, v *structs.VariableEncrypted, cas *uint64, lockID string) error {
	t.Helper()
	return s.ApplyVariableWrite(index, &VariableWrite{Op: structs.VarOpSet, Var: v, CheckIndex: cas, LockID: lockID})
}

func TestVariables_writeCheckAndSet(t *testing.T) {
	s := newStore(t)
	key := newRootKey(t)
	zero, stale := uint64(0), uint64(5)
	must.NoError(t, set(t, s, 5, sealedVar(t, key, "a/b", structs.VariableItems{"k": "1"}), &zero, ""))
	must.ErrorIs(t, set(t, s, 6, sealedVar(t, key, "a/b", structs.VariableItems{"k": "2"}), &zero, ""), ErrVariableConflict)
	must.NoError(t, set(t, s, 7, sealedVar(t, key, "a/b", structs.VariableItems{"k": "3"}), &stale, ""))
	must.ErrorIs(t, set(t, s, 8, sealedVar(t, key, "a/b", structs.VariableItems{"k": "4"}), &stale, ""), ErrVariableConflict)

	got, err := s.VariableByPath(nil, structs.DefaultNamespace, "a/b")
	must.NoError(t, err)
	must.Eq(t, 5, got.CreateIndex)
	must.Eq(t, 7, got.ModifyIndex)
	idx, err := s.Index(TableVariables)
	must.NoError(t, err)
	must.Eq(t, 7, idx, must.Sprint("a refused write bumped the table's index"))

	del := &VariableWrite{Op: structs.VarOpDelete, Var: &structs.VariableEncrypted{VariableMetadata: got.Metadata()}, CheckIndex: &stale}
	must.ErrorIs(t, s.ApplyVariableWrite(9, del), ErrVariableConflict)
	del.CheckIndex = nil
	must.NoError(t, s.ApplyVariableWrite(10, del))
	got, err = s.VariableByPath(nil, structs.DefaultNamespace, "a/b")
	must.NoError(t, err)
	must.Nil(t, got)
}

func TestVariables_lockedWrites(t *testing.T) {
	s := newStore(t)
	key := newRootKey(t)
	locked := &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: structs.DefaultNamespace, Path: "l",
		Lock: &structs.VariableLock{ID: "lock-1", TTL: structs.MinVariableLockTTL, LockDelay: structs.MinVariableLockTTL}}}
	must.NoError(t, s.ApplyVariableWrite(5, &VariableWrite{Op: structs.VarOpLockAcquire, Var: locked}))
	again := locked.Copy()
	again.Lock.ID = "lock-2"
	must.ErrorIs(t, s.ApplyVariableWrite(6, &VariableWrite{Op: structs.VarOpLockAcquire, Var: again}), ErrVariableLocked)
	must.ErrorIs(t, set(t, s, 7, sealedVar(t, key, "l", structs.VariableItems{"k": "v"}), nil, ""), ErrVariableLocked)
	must.NoError(t, set(t, s, 8, sealedVar(t, key, "l", structs.VariableItems{"k": "v"}), nil, "lock-1"))
	got, err := s.VariableByPath(nil, structs.DefaultNamespace, "l")
	must.NoError(t, err)
	must.Eq(t, "lock-1", got.Lock.ID, must.Sprint("the holder's write dropped the lock"))

	name := &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: structs.DefaultNamespace, Path: "l"}}
	must.ErrorIs(t, s.ApplyVariableWrite(9, &VariableWrite{Op: structs.VarOpDelete, Var: name}), ErrVariableLocked)
	must.ErrorIs(t, s.ApplyVariableWrite(10, &VariableWrite{Op: structs.VarOpLockRelease, Var: name, LockID: "lock-2"}), ErrVariableLocked)
	must.NoError(t, s.ApplyVariableWrite(11, &VariableWrite{Op: structs.VarOpLockRelease, Var: name, LockID: "lock-1"}))
	got, err = s.VariableByPath(nil, structs.DefaultNamespace, "l")
	must.NoError(t, err)
	must.Nil(t, got.Lock)
	must.Eq(t, key.KeyID, got.KeyID, must.Sprint("the release lost the items"))
}

func TestVariables_rekeyAndKeyRemoval(t *testing.T) {
	s := newStore(t)
	old, next := newRootKey(t), newRootKey(t)
	must.NoError(t, s.UpsertRootKey(1, old, true))
	must.NoError(t, set(t, s, 5, sealedVar(t, old, "a", structs.VariableItems{"k": "a"}), nil, ""))
	must.NoError(t, set(t, s, 6, sealedVar(t, old, "b", structs.VariableItems{"k": "b"}), nil, ""))
	must.NoError(t, s.UpsertRootKey(7, next, false))
	must.ErrorIs(t, s.DeleteRootKey(8, old.KeyID), ErrRootKeyInUse)

	// b changes after it was read for re-encryption: the rekey leaves it.
	rekeyA := sealedVar(t, next, "a", structs.VariableItems{"k": "a"})
	rekeyA.ModifyIndex = 5
	rekeyB := sealedVar(t, next, "b", structs.VariableItems{"k": "b"})
	rekeyB.ModifyIndex = 6
	must.NoError(t, set(t, s, 9, sealedVar(t, old, "b", structs.VariableItems{"k": "b2"}), nil, ""))
	must.NoError(t, s.RekeyVariables(10, []*structs.VariableEncrypted{rekeyA, rekeyB}))
	a, err := s.VariableByPath(nil, structs.DefaultNamespace, "a")
	must.NoError(t, err)
	must.Eq(t, next.KeyID, a.KeyID)
	must.Eq(t, 5, a.ModifyIndex)
	b, err := s.VariableByPath(nil, structs.DefaultNamespace, "b")
	must.NoError(t, err)
	must.Eq(t, old.KeyID, b.KeyID)
	must.Eq(t, 9, b.ModifyIndex)

	inUse, err := s.VariablesByKeyID(nil, old.KeyID)
	must.NoError(t, err)
	must.Len(t, 1, inUse)
}

func TestVariables_listAndSnapshot(t *testing.T) {
	s := newStore(t)
	key := newRootKey(t)
	must.NoError(t, s.UpsertNamespaces(2, []*structs.Namespace{{Name: "other"}}))
	for i, p := range []string{"app/a", "app/b", "apple", "zzz"} {
		must.NoError(t, set(t, s, uint64(10+i), sealedVar(t, key, p, structs.VariableItems{"k": p}), nil, ""))
	}
	elsewhere := sealedVar(t, key, "app/c", structs.VariableItems{"k": "x"})
	elsewhere.Namespace = "other"
	must.NoError(t, set(t, s, 20, elsewhere, nil, ""))

	paths := func(vs []*structs.VariableEncrypted) (out []string) {
		for _, v := range vs {
			out = append(out, v.Namespace+":"+v.Path)
		}
		return out
	}
	got, err := s.VariablesByPrefix(nil, structs.DefaultNamespace, "app/")
	must.NoError(t, err)
	must.Eq(t, []string{"default:app/a", "default:app/b"}, paths(got))
	got, err = s.VariablesByPrefix(nil, AllNamespaces, "app")
	must.NoError(t, err)
	must.Eq(t, []string{"default:app/a", "default:app/b", "default:apple", "other:app/c"}, paths(got))

	snap, err := s.Snapshot()
	must.NoError(t, err)
	var buf bytes.Buffer
	must.NoError(t, snap.Persist(&buf))
	restored, err := Restore(&buf)
	must.NoError(t, err)
	after, err := restored.VariablesByPrefix(nil, AllNamespaces, "")
	must.NoError(t, err)
	before, err := s.VariablesByPrefix(nil, AllNamespaces, "")
	must.NoError(t, err)
	must.Eq(t, before, after)
	idx, err := restored.Index(TableVariables)
	must.NoError(t, err)
	must.Eq(t, 20, idx)
}

func TestVariables_keepTheirNamespace(t *testing.T) {
	s := newStore(t)
	key := newRootKey(t)
	must.NoError(t, s.UpsertNamespaces(2, []*structs.Namespace{{Name: "team"}}))
	v := sealedVar(t, key, "a", structs.VariableItems{"k": "v"})
	v.Namespace = "team"
	must.NoError(t, set(t, s, 3, v, nil, ""))
	must.ErrorIs(t, s.DeleteNamespaces(4, []string{"team"}), ErrNamespaceHasVariables)
	del := &VariableWrite{Op: structs.VarOpDelete, Var: &structs.VariableEncrypted{VariableMetadata: v.Metadata()}}
	must.NoError(t, s.ApplyVariableWrite(5, del))
	must.NoError(t, s.DeleteNamespaces(6, []string{"team"}))
}
