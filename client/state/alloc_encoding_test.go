package state

import (
	"os"
	"testing"

	"github.com/shoenig/test/must"
	bolt "go.etcd.io/bbolt"
)

// The client keeps allocations as the model encodes them. The deadline
// (CreateTime plus the group's max_run_duration) is derived, so it is not
// stored; an older client stored it, and what it stored still loads.

func TestBoltStateDB_allocHoldsNoMaxRunDeadline(t *testing.T) {
	db, err := OpenBoltStateDB(nil, t.TempDir())
	must.NoError(t, err)
	defer db.Close()
	alloc := testAlloc("a1")
	_, ok := alloc.MaxRunDeadline()
	must.True(t, ok, must.Sprint("the allocation must have a deadline for the test to mean anything"))
	must.NoError(t, db.PutAllocation(alloc))

	var raw []byte
	must.NoError(t, db.(*BoltStateDB).db.View(func(tx *bolt.Tx) error {
		raw = append(raw, tx.Bucket(allocationsBucket).Bucket([]byte("a1")).Get(allocKey)...)
		return nil
	}))
	must.StrContains(t, string(raw), `"CreateTime"`)
	must.StrNotContains(t, string(raw), "MaxRunDeadline")
}

// TestBoltStateDB_readsOldAllocWithMaxRunDeadline loads an allocation as
// the previous version stored it, deadline included.
func TestBoltStateDB_readsOldAllocWithMaxRunDeadline(t *testing.T) {
	old, err := os.ReadFile("testdata/alloc_with_max_run_deadline.json")
	must.NoError(t, err)
	must.StrContains(t, string(old), `"MaxRunDeadline":1735787055000000000`)
	const id = "0b5cbb4e-5b1c-4c4b-9a5e-3a1f0c6d7e01"

	db, err := OpenBoltStateDB(nil, t.TempDir())
	must.NoError(t, err)
	defer db.Close()
	must.NoError(t, db.PutAllocation(testAlloc(id)))
	must.NoError(t, db.(*BoltStateDB).db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(allocationsBucket).Bucket([]byte(id)).Put(allocKey, old)
	}))

	allocs, errs, err := db.GetAllAllocations()
	must.NoError(t, err)
	must.MapEmpty(t, errs)
	must.Len(t, 1, allocs)
	must.Eq(t, "maxrun", allocs[0].JobID)
	deadline, ok := allocs[0].MaxRunDeadline()
	must.True(t, ok)
	must.Eq(t, int64(1735787055000000000), deadline.UnixNano())
}
