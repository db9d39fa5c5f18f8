package state

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/drover-io/drover/structs"
)

// A job version is stored once, under jobs/, however many allocations run
// it; each allocation names its version, and the version records which
// allocations run it, so that it goes when the last of them does.

// jobBucketKey is the key of a job version's bucket: its JobVersionKey in
// JSON, which says plainly what it is to whoever reads the file.
func jobBucketKey(job *structs.Job) ([]byte, error) {
	key, err := json.Marshal(job.VersionKey())
	if err != nil {
		return nil, fmt.Errorf("encode the key of job %q: %w", job.ID, err)
	}
	return key, nil
}

// putAllocJob stores the job version alloc runs, unless it is stored
// already, records alloc among those that run it, and lets go of the
// version alloc ran before, if another.
func putAllocJob(tx *bolt.Tx, b *bolt.Bucket, alloc *structs.Allocation) error {
	previous := bytes.Clone(b.Get(allocJobKey))
	var key []byte
	if alloc.Job.Versioned() {
		var err error
		if key, err = jobBucketKey(alloc.Job); err != nil {
			return err
		}
		jb, err := tx.Bucket(jobsBucket).CreateBucketIfNotExists(key)
		if err != nil {
			return fmt.Errorf("create the bucket of job version %s: %w", key, err)
		}
		if jb.Get(jobKey) == nil {
			if err := putJSON(jb, jobKey, alloc.Job); err != nil {
				return err
			}
		}
		refs, err := jb.CreateBucketIfNotExists(jobAllocsBucket)
		if err != nil {
			return fmt.Errorf("create the allocations bucket of job version %s: %w", key, err)
		}
		if err := refs.Put([]byte(alloc.ID), nil); err != nil {
			return fmt.Errorf("record allocation with job version %s: %w", key, err)
		}
		if err := b.Put(allocJobKey, key); err != nil {
			return fmt.Errorf("write job key: %w", err)
		}
	} else if err := b.Delete(allocJobKey); err != nil {
		return fmt.Errorf("delete job key: %w", err)
	}
	if previous != nil && !bytes.Equal(previous, key) {
		return releaseJob(tx, previous, alloc.ID)
	}
	return nil
}

// releaseJob records that allocID no longer runs the job version of key
// (nil: none), and deletes the version if nothing runs it any more.
func releaseJob(tx *bolt.Tx, key []byte, allocID string) error {
	if key == nil {
		return nil
	}
	jobs := tx.Bucket(jobsBucket)
	jb := jobs.Bucket(key)
	if jb == nil {
		return nil
	}
	if refs := jb.Bucket(jobAllocsBucket); refs != nil {
		if err := refs.Delete([]byte(allocID)); err != nil {
			return fmt.Errorf("forget allocation of job version %s: %w", key, err)
		}
		if k, _ := refs.Cursor().First(); k != nil {
			return nil
		}
	}
	if err := jobs.DeleteBucket(key); err != nil {
		return fmt.Errorf("delete job version %s: %w", key, err)
	}
	return nil
}

// jobReader reads job versions for the allocations of one transaction,
// decoding each version once.
type jobReader struct {
	jobs    *bolt.Bucket
	decoded map[string]*structs.Job
	// inline shares the jobs that allocations of layout "1" hold.
	inline map[structs.JobVersionKey]*structs.Job
}

func newJobReader(tx *bolt.Tx) *jobReader {
	return &jobReader{
		jobs:    tx.Bucket(jobsBucket),
		decoded: make(map[string]*structs.Job),
		inline:  make(map[structs.JobVersionKey]*structs.Job),
	}
}

// attach gives alloc, read from its bucket b, the shared copy of its job.
func (r *jobReader) attach(b *bolt.Bucket, alloc *structs.Allocation) error {
	if alloc.Job != nil {
		// Layout "1", or a job that has no version: the allocation holds
		// its own copy.
		if !alloc.Job.Versioned() {
			return nil
		}
		k := alloc.Job.VersionKey()
		if shared, ok := r.inline[k]; ok {
			alloc.Job = shared
		} else {
			r.inline[k] = alloc.Job
		}
		return nil
	}
	key := b.Get(allocJobKey)
	if key == nil {
		return nil
	}
	if job, ok := r.decoded[string(key)]; ok {
		alloc.Job = job
		return nil
	}
	jb := r.jobs.Bucket(key)
	if jb == nil {
		return fmt.Errorf("the allocation's job version %s is not stored", key)
	}
	job := new(structs.Job)
	found, err := getJSON(jb, jobKey, job)
	if err != nil {
		return fmt.Errorf("job version %s: %w", key, err)
	}
	if !found {
		return fmt.Errorf("job version %s has no job record", key)
	}
	r.decoded[string(key)] = job
	alloc.Job = job
	return nil
}
