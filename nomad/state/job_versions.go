package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
)

// JobTrackedVersions is how many versions of a job the store keeps.
const JobTrackedVersions = 6

// specChanged reports whether next specifies a different job than prev.
// Fields the server sets (status, stability, version, submit time, raft
// indexes) are not part of the specification. The two are compared in
// their JSON form, which is how every stored job reached the store: a task
// config decoded from the raft log or from a snapshot compares equal to
// the same config however its numbers were typed.
func specChanged(prev, next *structs.Job) (bool, error) {
	a, err := specJSON(prev)
	if err != nil {
		return false, err
	}
	b, err := specJSON(next)
	if err != nil {
		return false, err
	}
	return !bytes.Equal(a, b), nil
}

func specJSON(job *structs.Job) ([]byte, error) {
	spec := *job
	spec.Status, spec.StatusDescription = "", ""
	spec.Stable = false
	spec.Version, spec.SubmitTime = 0, 0
	spec.CreateIndex, spec.ModifyIndex, spec.JobModifyIndex = 0, 0, 0
	out, err := json.Marshal(&spec)
	if err != nil {
		return nil, fmt.Errorf("encode job specification: %w", err)
	}
	return out, nil
}

// upsertJobVersion stores job under its version and drops the versions
// beyond the newest JobTrackedVersions.
func upsertJobVersion(txn *memdb.Txn, job *structs.Job) error {
	if err := txn.Insert(TableJobVersions, job); err != nil {
		return fmt.Errorf("store version %d: %w", job.Version, err)
	}
	it, err := txn.Get(TableJobVersions, indexJob, job.Namespace, job.ID)
	if err != nil {
		return fmt.Errorf("read versions: %w", err)
	}
	var versions []*structs.Job // oldest first: the index orders by version
	for raw := it.Next(); raw != nil; raw = it.Next() {
		versions = append(versions, raw.(*structs.Job))
	}
	for len(versions) > JobTrackedVersions {
		if err := txn.Delete(TableJobVersions, versions[0]); err != nil {
			return fmt.Errorf("drop version %d: %w", versions[0].Version, err)
		}
		versions = versions[1:]
	}
	return nil
}

// JobVersionsByID returns the stored versions of a job, newest first.
func (r *reader) JobVersionsByID(ws memdb.WatchSet, namespace, id string) ([]*structs.Job, error) {
	versions, err := list[*structs.Job](r, ws, TableJobVersions, indexJob, namespace, id)
	if err != nil {
		return nil, wrapRead(err, "versions of job %q in namespace %q", id, namespace)
	}
	slices.Reverse(versions)
	return versions, nil
}

// JobByIDAndVersion returns one version of a job, or nil if it is not
// stored.
func (r *reader) JobByIDAndVersion(ws memdb.WatchSet, namespace, id string, version uint64) (*structs.Job, error) {
	raw, err := r.first(ws, TableJobVersions, indexID, namespace, id, version)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "version %d of job %q in namespace %q", version, id, namespace)
	}
	return raw.(*structs.Job), nil
}

// JobVersionByKey returns the stored copy of the job version key names, or
// nil when the store does not hold that version (it was never stored, or
// is older than the versions kept). Allocations of the version share it
// instead of holding a copy each.
func (r *reader) JobVersionByKey(key structs.JobVersionKey) (*structs.Job, error) {
	raw, err := r.txn().First(TableJobVersions, indexID, key.Namespace, key.ID, key.Version)
	if err != nil {
		return nil, wrapRead(err, "version %d of job %q in namespace %q", key.Version, key.ID, key.Namespace)
	}
	if raw == nil {
		return nil, nil
	}
	job := raw.(*structs.Job)
	if job.CreateIndex != key.CreateIndex || job.JobModifyIndex != key.JobModifyIndex {
		return nil, nil // another job of the same ID, or another write of it
	}
	return job, nil
}
