package state

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestRestore_oldSnapshotWithMaxRunDeadline restores a snapshot as the
// previous version wrote it, whose allocation records carry the derived
// MaxRunDeadline: the field is ignored, the deadline derived from the
// restored allocation is the one written, and a new snapshot of the
// restored state no longer holds it.
func TestRestore_oldSnapshotWithMaxRunDeadline(t *testing.T) {
	data, err := os.ReadFile("testdata/snapshot_with_max_run_deadline.jsonl")
	must.NoError(t, err)
	must.True(t, bytes.Contains(data, []byte(`"MaxRunDeadline":1735787055000000000`)))

	s, err := Restore(bytes.NewReader(data))
	must.NoError(t, err)
	alloc, err := s.AllocByID(nil, "0b5cbb4e-5b1c-4c4b-9a5e-3a1f0c6d7e01")
	must.NoError(t, err)
	must.NotNil(t, alloc)
	deadline, ok := alloc.MaxRunDeadline()
	must.True(t, ok)
	must.Eq(t, time.Date(2025, 1, 2, 3, 4, 15, 0, time.UTC).UnixNano(), deadline.UnixNano())

	snap, err := s.Snapshot()
	must.NoError(t, err)
	var out bytes.Buffer
	must.NoError(t, snap.Persist(&out))
	must.StrContains(t, out.String(), alloc.ID)
	must.StrNotContains(t, out.String(), "MaxRunDeadline")
}

// TestRestore_oldSnapshotWithoutNamespaces restores a snapshot written
// before namespaces were stored, with a job outside the default namespace:
// the default namespace is there, and so is the job's, created for it.
func TestRestore_oldSnapshotWithoutNamespaces(t *testing.T) {
	data, err := os.ReadFile("testdata/snapshot_without_namespaces.jsonl")
	must.NoError(t, err)
	s, err := Restore(bytes.NewReader(data))
	must.NoError(t, err)

	job, err := s.JobByID(nil, "legacy", "old")
	must.NoError(t, err)
	must.NotNil(t, job)
	namespaces, err := s.NamespacesByNamePrefix(nil, "")
	must.NoError(t, err)
	must.Len(t, 2, namespaces)
	must.Eq(t, "default", namespaces[0].Name)
	must.Eq(t, "legacy", namespaces[1].Name)
	must.Eq(t, 7, namespaces[1].CreateIndex)
	// The job can be updated in it, and the namespace outlives it only
	// once the job is purged.
	must.NoError(t, s.UpsertJob(10, job.Copy()))
	must.ErrorIs(t, s.DeleteNamespaces(11, []string{"legacy"}), ErrNamespaceInUse)
}
