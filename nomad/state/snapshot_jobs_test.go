package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// A job version is stored once, in memory and in snapshots, however many
// allocations run it.

// versionedStore holds job "shared" in 8 versions, of which the table
// keeps the newest 6, and allocations: three of the current version, two
// of version 0 and one finished of version 1, both no longer in the table.
func versionedStore(t *testing.T) (*StateStore, []*structs.Job) {
	t.Helper()
	s := newStore(t)
	var versions []*structs.Job
	for v := range 8 {
		job := testJob("shared")
		job.Meta = map[string]string{"rev": fmt.Sprint(v)}
		versions = append(versions, mustUpsertJob(t, s, uint64(v+1), job))
	}
	var allocs []*structs.Allocation
	for i, job := range []*structs.Job{versions[7], versions[7], versions[7], versions[0], versions[0], versions[1]} {
		a := testAlloc(job, "eval", "node-1")
		a.ID = fmt.Sprintf("alloc-%d", i)
		a.Job = job
		if i == 5 {
			a.ClientStatus = structs.AllocClientStatusComplete
		}
		allocs = append(allocs, a)
	}
	must.NoError(t, s.UpsertAllocs(20, allocs))
	return s, versions
}

func persisted(t *testing.T, s *StateStore) []byte {
	t.Helper()
	snap, err := s.Snapshot()
	must.NoError(t, err)
	var buf bytes.Buffer
	must.NoError(t, snap.Persist(&buf))
	return buf.Bytes()
}

// recordTypes counts the records of a stream by type, and the records
// that hold a whole job (its task groups) by type.
func recordTypes(t *testing.T, stream []byte) (records, withJob map[string]int) {
	t.Helper()
	records, withJob = map[string]int{}, map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(stream))
	for dec.More() {
		var rec record
		must.NoError(t, dec.Decode(&rec))
		records[rec.Type]++
		if bytes.Contains(rec.Value, []byte(`"TaskGroups"`)) {
			withJob[rec.Type]++
		}
	}
	return records, withJob
}

func allocsByID(t *testing.T, s *StateStore) map[string]*structs.Allocation {
	t.Helper()
	allocs, err := s.Allocs(nil)
	must.NoError(t, err)
	out := make(map[string]*structs.Allocation, len(allocs))
	for _, a := range allocs {
		out[a.ID] = a
	}
	return out
}

// mustShareVersions checks that the allocations of one version hold one
// copy of its job, the table's when the table holds the version.
func mustShareVersions(t *testing.T, s *StateStore) {
	t.Helper()
	byID := allocsByID(t, s)
	current, err := s.JobByID(nil, structs.DefaultNamespace, "shared")
	must.NoError(t, err)
	tableCurrent, err := s.JobByIDAndVersion(nil, structs.DefaultNamespace, "shared", 7)
	must.NoError(t, err)
	must.True(t, current == tableCurrent, must.Sprint("the jobs table and the versions table share the current version"))
	for _, id := range []string{"alloc-0", "alloc-1", "alloc-2"} {
		must.True(t, byID[id].Job == current, must.Sprintf("%s shares the stored current version", id))
	}
	must.Eq(t, 0, byID["alloc-3"].Job.Version)
	must.True(t, byID["alloc-3"].Job == byID["alloc-4"].Job, must.Sprint("the allocations of version 0 share one copy"))
	must.Eq(t, "0", byID["alloc-3"].Job.Meta["rev"])
	must.Eq(t, 1, byID["alloc-5"].Job.Version)
}

func TestSnapshot_writesEachJobVersionOnce(t *testing.T) {
	s, _ := versionedStore(t)
	mustShareVersions(t, s)
	stream := persisted(t, s)

	records, withJob := recordTypes(t, stream)
	must.Eq(t, 6, records[recordAlloc])
	must.Eq(t, 0, withJob[recordAlloc], must.Sprint("no allocation record holds a job"))
	must.Eq(t, map[string]int{recordJob: 1, recordJobVersion: 6, recordAllocJob: 2}, withJob,
		must.Sprint("versions 0 and 1, which allocations run and the table dropped, are written once each"))

	restored, err := Restore(bytes.NewReader(stream))
	must.NoError(t, err)
	mustShareVersions(t, restored)
	want, got := allocsByID(t, s), allocsByID(t, restored)
	for id, a := range want {
		must.Eq(t, a, got[id], must.Sprintf("allocation %s restores as it was", id))
	}
}

// TestRestore_inlineJobsSnapshot restores a snapshot of format version 1,
// in which every allocation held its job (testdata/snapshot_v1_allocs_with_jobs.jsonl,
// written by commit ff5c91b from the store versionedStore builds, with
// UUIDs for IDs): the allocations of each version come to share one copy,
// and the snapshot taken of the restored store writes each version once.
func TestRestore_inlineJobsSnapshot(t *testing.T) {
	data, err := os.ReadFile("testdata/snapshot_v1_allocs_with_jobs.jsonl")
	must.NoError(t, err)
	must.StrHasPrefix(t, `{"Type":"header","Value":{"Version":1}}`, string(data))
	_, withJob := recordTypes(t, data)
	must.Eq(t, 6, withJob[recordAlloc], must.Sprint("the old format holds a job in every allocation"))

	restored, err := Restore(bytes.NewReader(data))
	must.NoError(t, err)
	byID := allocsByID(t, restored)
	current, err := restored.JobByIDAndVersion(nil, structs.DefaultNamespace, "shared", 7)
	must.NoError(t, err)
	for _, suffix := range []string{"01", "02", "03"} {
		must.True(t, byID["44444444-4444-4444-8444-4444444444"+suffix].Job == current)
	}
	v0 := byID["44444444-4444-4444-8444-444444444404"].Job
	must.Eq(t, 0, v0.Version)
	must.True(t, byID["44444444-4444-4444-8444-444444444405"].Job == v0)

	again := persisted(t, restored)
	must.StrHasPrefix(t, `{"Type":"header","Value":{"Version":2}}`, string(again))
	records, withJob := recordTypes(t, again)
	must.Eq(t, 6, records[recordAlloc])
	must.Eq(t, 0, withJob[recordAlloc])
	must.Eq(t, 2, withJob[recordAllocJob])
}

// TestSnapshot_keepsUnversionedJobsInline: an allocation whose job was
// never stored (it has no version to name) keeps its own copy through a
// snapshot, and two such jobs of one ID are not taken for one another.
func TestSnapshot_keepsUnversionedJobsInline(t *testing.T) {
	s := newStore(t)
	var allocs []*structs.Allocation
	for i := range 2 {
		job := testJob("made-up")
		job.Meta = map[string]string{"n": fmt.Sprint(i)}
		a := testAlloc(job, "eval", "node-1")
		a.Job = job
		allocs = append(allocs, a)
	}
	must.NoError(t, s.UpsertAllocs(3, allocs))
	stream := persisted(t, s)
	_, withJob := recordTypes(t, stream)
	must.Eq(t, 2, withJob[recordAlloc])
	restored, err := Restore(bytes.NewReader(stream))
	must.NoError(t, err)
	byID := allocsByID(t, restored)
	for _, a := range allocs {
		must.Eq(t, a.Job, byID[a.ID].Job)
	}
}
