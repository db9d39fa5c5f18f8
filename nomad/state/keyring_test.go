package state

import (
	"bytes"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func newRootKey(t *testing.T) *structs.RootKey {
	t.Helper()
	k, err := structs.NewRootKey(time.Unix(1_700_000_000, 0))
	must.NoError(t, err)
	return k
}

func TestRootKeys_bootstrapWritesOnce(t *testing.T) {
	s := newStore(t)
	first, second := newRootKey(t), newRootKey(t)
	must.NoError(t, s.UpsertRootKey(5, first, true))
	// A second leader that also found the keyring empty changes nothing.
	must.NoError(t, s.UpsertRootKey(6, second, true))

	keys, err := s.RootKeys(nil)
	must.NoError(t, err)
	must.Len(t, 1, keys)
	must.Eq(t, first.KeyID, keys[0].KeyID)
	must.Eq(t, 5, keys[0].CreateIndex)
	idx, err := s.Index(TableRootKeys)
	must.NoError(t, err)
	must.Eq(t, 5, idx)
}

func TestRootKeys_rotateDeactivatesTheOthers(t *testing.T) {
	s := newStore(t)
	first, second := newRootKey(t), newRootKey(t)
	must.NoError(t, s.UpsertRootKey(5, first, true))
	must.NoError(t, s.UpsertRootKey(9, second, false))

	keys, err := s.RootKeys(nil)
	must.NoError(t, err)
	must.Len(t, 2, keys)
	must.Eq(t, first.KeyID, keys[0].KeyID)
	must.Eq(t, structs.RootKeyStateInactive, keys[0].State)
	must.Eq(t, 5, keys[0].CreateIndex)
	must.Eq(t, 9, keys[0].ModifyIndex)
	must.Eq(t, structs.RootKeyStateActive, keys[1].State)
	// The stored copy changed, not the object written earlier.
	must.Eq(t, structs.RootKeyStateActive, first.State)

	active, err := s.ActiveRootKey(nil)
	must.NoError(t, err)
	must.Eq(t, second.KeyID, active.KeyID)
}

func TestRootKeys_delete(t *testing.T) {
	s := newStore(t)
	first, second := newRootKey(t), newRootKey(t)
	must.NoError(t, s.UpsertRootKey(5, first, true))
	must.ErrorIs(t, s.DeleteRootKey(6, first.KeyID), ErrActiveRootKey)
	must.NoError(t, s.UpsertRootKey(7, second, false))
	must.ErrorIs(t, s.DeleteRootKey(8, "00000000-0000-4000-8000-000000000000"), ErrNotFound)
	must.NoError(t, s.DeleteRootKey(9, first.KeyID))

	got, err := s.RootKeyByID(nil, first.KeyID)
	must.NoError(t, err)
	must.Nil(t, got)
	idx, err := s.Index(TableRootKeys)
	must.NoError(t, err)
	must.Eq(t, 9, idx)
}

func TestRootKeys_snapshotRoundTrip(t *testing.T) {
	s := newStore(t)
	first, second := newRootKey(t), newRootKey(t)
	must.NoError(t, s.UpsertRootKey(5, first, true))
	must.NoError(t, s.UpsertRootKey(7, second, false))
	snap, err := s.Snapshot()
	must.NoError(t, err)
	var buf bytes.Buffer
	must.NoError(t, snap.Persist(&buf))

	restored, err := Restore(&buf)
	must.NoError(t, err)
	want, err := s.RootKeys(nil)
	must.NoError(t, err)
	got, err := restored.RootKeys(nil)
	must.NoError(t, err)
	must.Eq(t, want, got)
	must.Eq(t, second.Seed, got[1].Seed)
	idx, err := restored.Index(TableRootKeys)
	must.NoError(t, err)
	must.Eq(t, 7, idx)
}
