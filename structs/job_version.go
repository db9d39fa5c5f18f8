package structs

import (
	"sync"
	"weak"
)

// A job version is immutable once stored: every allocation of it runs the
// same specification. So the server and the client each keep one copy of a
// version, whatever the number of allocations that point at it, and an
// allocation's Job is that shared copy, never to be modified (writers
// change a Copy). A job of 10,000 groups is megabytes; a copy of it per
// allocation is gigabytes.

// JobVersionKey names one version of one job. JobModifyIndex, the raft
// index that wrote the version's specification, tells versions apart, and
// CreateIndex a job from an earlier one of the same ID that was purged.
type JobVersionKey struct {
	Namespace      string
	ID             string
	Version        uint64
	CreateIndex    uint64
	JobModifyIndex uint64
}

// Versioned reports whether j is a stored version of a job, which its
// VersionKey names. A job that was never stored (one being planned, or
// made up by a test) has no JobModifyIndex, no such name, and is never
// shared: two of them may differ under the same ID.
func (j *Job) Versioned() bool { return j != nil && j.JobModifyIndex != 0 }

// VersionKey is the key of the version j is.
func (j *Job) VersionKey() JobVersionKey {
	return JobVersionKey{
		Namespace:      j.Namespace,
		ID:             j.ID,
		Version:        j.Version,
		CreateIndex:    j.CreateIndex,
		JobModifyIndex: j.JobModifyIndex,
	}
}

// JobVersions hands out one copy of each job version: the first copy it is
// given of a version is the one it gives back for every later copy of the
// same version, for as long as anything still holds it. It holds the
// copies weakly: a version no allocation runs any more is garbage
// collected as if JobVersions did not exist. Its zero value is ready to
// use, and it is safe for concurrent use.
type JobVersions struct {
	mu sync.Mutex
	m  map[JobVersionKey]weak.Pointer[Job]
	// sweepAt is the map size at which dead entries are next swept.
	sweepAt int
}

// Share returns the copy of job's version already handed out, or job
// itself, which it hands out from now on. nil, and a job that is not
// Versioned, come back as they are.
func (v *JobVersions) Share(job *Job) *Job {
	if !job.Versioned() {
		return job
	}
	key := job.VersionKey()
	v.mu.Lock()
	defer v.mu.Unlock()
	if shared := v.m[key].Value(); shared != nil {
		return shared
	}
	if v.m == nil {
		v.m = make(map[JobVersionKey]weak.Pointer[Job])
	}
	v.m[key] = weak.Make(job)
	if len(v.m) >= v.sweepAt {
		v.sweep()
	}
	return job
}

// ShareAll replaces the Job of each allocation by the shared copy of its
// version.
func (v *JobVersions) ShareAll(allocs []*Allocation) {
	for _, a := range allocs {
		if a != nil {
			a.Job = v.Share(a.Job)
		}
	}
}

// sweep drops the entries of versions that were garbage collected, and
// sets the next sweep for when the map has doubled, so that the sweeps
// cost a constant time per Share.
func (v *JobVersions) sweep() {
	for key, p := range v.m {
		if p.Value() == nil {
			delete(v.m, key)
		}
	}
	v.sweepAt = max(2*len(v.m), 64)
}

// Len is the number of versions held, dead ones not yet swept included.
func (v *JobVersions) Len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.m)
}
