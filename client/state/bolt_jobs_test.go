package state

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
	bolt "go.etcd.io/bbolt"

	"github.com/drover-io/drover/structs"
)

// versionedAlloc is testAlloc running version v of job "example", with a
// job copy of its own.
func versionedAlloc(id string, v uint64) *structs.Allocation {
	a := testAlloc(id)
	a.Job.Namespace = "default"
	a.Job.Version, a.Job.CreateIndex, a.Job.JobModifyIndex = v, 1, 10+v
	return a
}

// storedJobVersions lists the job version buckets of db and, for each,
// the allocations recorded as running it.
func storedJobVersions(t *testing.T, db StateDB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	must.NoError(t, db.(*BoltStateDB).db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(jobsBucket).ForEachBucket(func(key []byte) error {
			refs := []string{}
			err := tx.Bucket(jobsBucket).Bucket(key).Bucket(jobAllocsBucket).ForEach(func(k, _ []byte) error {
				refs = append(refs, string(k))
				return nil
			})
			out[string(key)] = refs
			return err
		})
	}))
	return out
}

func TestBoltStateDB_storesEachJobVersionOnce(t *testing.T) {
	db, err := OpenBoltStateDB(nil, t.TempDir())
	must.NoError(t, err)
	defer db.Close()
	for _, id := range []string{"a1", "a2", "a3"} {
		must.NoError(t, db.PutAllocation(versionedAlloc(id, 0)))
	}
	must.NoError(t, db.PutAllocation(versionedAlloc("b1", 1)))

	v0, err := jobBucketKey(versionedAlloc("", 0).Job)
	must.NoError(t, err)
	v1, err := jobBucketKey(versionedAlloc("", 1).Job)
	must.NoError(t, err)
	must.Eq(t, map[string][]string{string(v0): {"a1", "a2", "a3"}, string(v1): {"b1"}}, storedJobVersions(t, db))
	must.NoError(t, db.(*BoltStateDB).db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(allocationsBucket).Bucket([]byte("a1")).Get(allocKey)
		must.StrNotContains(t, string(raw), "TaskGroups", must.Sprint("an allocation record holds no job"))
		return nil
	}))

	allocs, errs, err := db.GetAllAllocations()
	must.NoError(t, err)
	must.MapEmpty(t, errs)
	byID := map[string]*structs.Allocation{}
	for _, a := range allocs {
		byID[a.ID] = a
	}
	must.True(t, byID["a1"].Job == byID["a2"].Job && byID["a2"].Job == byID["a3"].Job,
		must.Sprint("the allocations of a version read back with one copy of it"))
	must.Eq(t, versionedAlloc("a1", 0), byID["a1"])
	must.Eq(t, 1, byID["b1"].Job.Version)

	// An in-place update moves a3 to version 1; the last allocation of a
	// version to go takes the version with it.
	must.NoError(t, db.PutAllocation(versionedAlloc("a3", 1)))
	must.Eq(t, map[string][]string{string(v0): {"a1", "a2"}, string(v1): {"a3", "b1"}}, storedJobVersions(t, db))
	must.NoError(t, db.DeleteAllocationBucket("a1"))
	must.NoError(t, db.DeleteAllocationBucket("a2"))
	must.Eq(t, map[string][]string{string(v1): {"a3", "b1"}}, storedJobVersions(t, db))
	must.NoError(t, db.DeleteAllocationBucket("a3"))
	must.NoError(t, db.DeleteAllocationBucket("b1"))
	must.NoError(t, db.DeleteAllocationBucket("never-stored"))
	must.MapEmpty(t, storedJobVersions(t, db))
}

// TestBoltStateDB_readsLayout1 opens a database of layout "1", in which
// every allocation holds its job (testdata/layout-1/state.db, written by
// the state DB of commit ff5c91b: allocations ...331 and ...332 run
// version 0 of job "example", ...333 version 1, each with a running task
// "server"). Its allocations read back with one copy per version, the
// database is upgraded to layout "2", and allocations written from then on
// name their version.
func TestBoltStateDB_readsLayout1(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "layout-1", "state.db"))
	must.NoError(t, err)
	dir := t.TempDir()
	must.NoError(t, os.WriteFile(filepath.Join(dir, "state.db"), data, 0o600))

	db, err := OpenBoltStateDB(nil, dir)
	must.NoError(t, err)
	allocs, errs, err := db.GetAllAllocations()
	must.NoError(t, err)
	must.MapEmpty(t, errs)
	must.Len(t, 3, allocs)
	byID := map[string]*structs.Allocation{}
	for _, a := range allocs {
		byID[a.ID] = a
	}
	first, second, third := byID["33333333-3333-4333-8333-333333333331"], byID["33333333-3333-4333-8333-333333333332"], byID["33333333-3333-4333-8333-333333333333"]
	must.True(t, first.Job == second.Job, must.Sprint("the allocations of version 0 share one copy"))
	must.Eq(t, 1, third.Job.Version)
	must.Eq(t, "server", first.LookupTaskGroup().Tasks[0].Name)
	_, ts, err := db.GetTaskRunnerState(first.ID, "server")
	must.NoError(t, err)
	must.Eq(t, structs.TaskStateRunning, ts.State)

	must.NoError(t, db.PutAllocation(third))
	must.NoError(t, db.(*BoltStateDB).db.View(func(tx *bolt.Tx) error {
		must.Eq(t, schemaVersion, string(tx.Bucket(metaBucket).Get(versionKey)))
		return nil
	}))
	must.MapLen(t, 1, storedJobVersions(t, db))
	must.NoError(t, db.Close())

	db, err = OpenBoltStateDB(nil, dir)
	must.NoError(t, err)
	defer db.Close()
	allocs, errs, err = db.GetAllAllocations()
	must.NoError(t, err)
	must.MapEmpty(t, errs)
	must.Len(t, 3, allocs)
	for _, a := range allocs {
		must.NotNil(t, a.Job, must.Sprintf("%s has its job", a.ID))
	}
}

// TestBoltStateDB_refusesUnknownLayout: a layout this client does not know
// is refused, not misread.
func TestBoltStateDB_refusesUnknownLayout(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBoltStateDB(nil, dir)
	must.NoError(t, err)
	must.NoError(t, db.(*BoltStateDB).db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(metaBucket).Put(versionKey, []byte("3"))
	}))
	must.NoError(t, db.Close())
	_, err = OpenBoltStateDB(nil, dir)
	must.ErrorContains(t, err, `state schema version "3" is not supported`)
}
