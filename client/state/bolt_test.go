package state

import (
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
	bolt "go.etcd.io/bbolt"

	"github.com/drover-io/drover/structs"
)

func TestBoltStateDB_SurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBoltStateDB(nil, dir)
	must.NoError(t, err)
	must.NoError(t, db.PutAllocation(testAlloc("a1")))
	must.NoError(t, db.PutAllocRunnerState("a1", &AllocRunnerState{KillReason: KillReasonStopped}))
	must.NoError(t, db.PutTaskRunnerState("a1", "web", &TaskRunnerLocalState{RestartCount: 1},
		&structs.TaskState{State: structs.TaskStateRunning}))
	must.NoError(t, db.Close())
	must.FileExists(t, filepath.Join(dir, "state.db"))

	db, err = OpenBoltStateDB(nil, dir)
	must.NoError(t, err)
	defer db.Close()
	allocs, errs, err := db.GetAllAllocations()
	must.NoError(t, err)
	must.MapEmpty(t, errs)
	must.Len(t, 1, allocs)
	rs, err := db.GetAllocRunnerState("a1")
	must.NoError(t, err)
	must.Eq(t, KillReasonStopped, rs.KillReason)
	local, ts, err := db.GetTaskRunnerState("a1", "web")
	must.NoError(t, err)
	must.Eq(t, 1, local.RestartCount)
	must.Eq(t, structs.TaskStateRunning, ts.State)
}

func TestBoltStateDB_CorruptAllocationIsReportedAlone(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBoltStateDB(nil, dir)
	must.NoError(t, err)
	must.NoError(t, db.PutAllocation(testAlloc("good")))
	must.NoError(t, db.PutAllocation(testAlloc("bad")))
	must.NoError(t, db.(*BoltStateDB).db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(allocationsBucket).Bucket([]byte("bad")).Put(allocKey, []byte("{not json"))
	}))

	allocs, errs, err := db.GetAllAllocations()
	must.NoError(t, err)
	must.Len(t, 1, allocs)
	must.Eq(t, "good", allocs[0].ID)
	must.MapLen(t, 1, errs)
	must.ErrorContains(t, errs["bad"], "decode alloc")
	must.NoError(t, db.Close())
}

func TestBoltStateDB_RefusesOtherSchemaVersion(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBoltStateDB(nil, dir)
	must.NoError(t, err)
	must.NoError(t, db.(*BoltStateDB).db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(metaBucket).Put(versionKey, []byte("99"))
	}))
	must.NoError(t, db.Close())

	_, err = OpenBoltStateDB(nil, dir)
	must.ErrorContains(t, err, `state schema version "99" is not supported`)
}

func TestBoltStateDB_ReadsRunnerStateWrittenBeforeKillReasons(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBoltStateDB(nil, dir)
	must.NoError(t, err)
	defer db.Close()
	// What agents before kill reasons stored under runner_state.
	for id, stored := range map[string]string{
		"exceeded":     `{"MaxRunDurationExceeded":true}`,
		"not-exceeded": `{"MaxRunDurationExceeded":false}`,
	} {
		must.NoError(t, db.(*BoltStateDB).db.Update(func(tx *bolt.Tx) error {
			b, err := allocBucket(tx, id, true)
			if err != nil {
				return err
			}
			return b.Put(runnerStateKey, []byte(stored))
		}))
	}

	rs, err := db.GetAllocRunnerState("exceeded")
	must.NoError(t, err)
	must.Eq(t, &AllocRunnerState{KillReason: KillReasonMaxRunDuration}, rs)
	rs, err = db.GetAllocRunnerState("not-exceeded")
	must.NoError(t, err)
	must.Eq(t, &AllocRunnerState{}, rs)

	// Written again, the state has the new layout only.
	must.NoError(t, db.PutAllocRunnerState("exceeded", &AllocRunnerState{KillReason: KillReasonMaxRunDuration}))
	must.NoError(t, db.(*BoltStateDB).db.View(func(tx *bolt.Tx) error {
		got := string(tx.Bucket(allocationsBucket).Bucket([]byte("exceeded")).Get(runnerStateKey))
		must.Eq(t, `{"KillReason":"max_run_duration"}`, got)
		return nil
	}))
}
