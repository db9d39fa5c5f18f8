package state

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
)

// ErrNoNamespace is wrapped by a write of a job whose namespace does not
// exist.
var ErrNoNamespace = errors.New("no such namespace")

// AllNamespaces, passed as the namespace of a prefix query, matches every
// namespace.
const AllNamespaces = "*"

// UpsertJob registers job or updates the stored job of the same namespace
// and ID. The store takes ownership of job and sets its server fields:
// CreateIndex (kept from the stored job), ModifyIndex, and, when the
// specification changed (see specChanged), a new Version and
// JobModifyIndex. Re-registering an identical job keeps its version. An
// empty Status keeps the stored status (pending for a new job). Every
// upsert also records the job under its version; only the newest
// JobTrackedVersions versions are kept. The job's namespace must exist.
func (s *StateStore) UpsertJob(index uint64, job *structs.Job) error {
	if err := checkJob(job); err != nil {
		return fmt.Errorf("upsert job: %w", err)
	}
	return s.write(func(txn *memdb.Txn) error {
		exists, err := namespaceExists(txn, job.Namespace)
		if err != nil {
			return err
		}
		if !exists {
			return fmt.Errorf("job %q is in namespace %q, which does not exist: %w", job.ID, job.Namespace, ErrNoNamespace)
		}
		if err := upsertJob(txn, index, job); err != nil {
			return fmt.Errorf("upsert job %q in namespace %q: %w", job.ID, job.Namespace, err)
		}
		return bumpIndex(txn, index, TableJobs, TableJobVersions)
	})
}

func checkJob(job *structs.Job) error {
	switch {
	case job == nil:
		return errors.New("job is nil")
	case job.ID == "":
		return errors.New("job has no ID")
	case job.Namespace == "":
		return fmt.Errorf("job %q has no namespace", job.ID)
	}
	return nil
}

func upsertJob(txn *memdb.Txn, index uint64, job *structs.Job) error {
	raw, err := txn.First(TableJobs, indexID, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	job.ModifyIndex = index
	if raw == nil {
		job.CreateIndex = index
		job.JobModifyIndex = index
		job.Version = 0
		if job.Status == "" {
			job.Status = structs.JobStatusPending
		}
	} else {
		existing := raw.(*structs.Job)
		changed, err := specChanged(existing, job)
		if err != nil {
			return err
		}
		job.CreateIndex = existing.CreateIndex
		if changed {
			job.Version = existing.Version + 1
			job.JobModifyIndex = index
		} else {
			job.Version = existing.Version
			job.JobModifyIndex = existing.JobModifyIndex
			job.SubmitTime = existing.SubmitTime
			job.Stable = existing.Stable
		}
		if job.Status == "" {
			job.Status = existing.Status
			job.StatusDescription = existing.StatusDescription
		}
	}
	if err := txn.Insert(TableJobs, job); err != nil {
		return err
	}
	return upsertJobVersion(txn, job)
}

// UpdateJobStatus sets the server-derived status of a job. It is not a
// change of the specification: the version stays. Setting the status the
// job already has writes nothing.
func (s *StateStore) UpdateJobStatus(index uint64, namespace, id, status, desc string) error {
	switch status {
	case structs.JobStatusPending, structs.JobStatusRunning, structs.JobStatusDead:
	default:
		return fmt.Errorf("update status of job %q in namespace %q: unknown status %q", id, namespace, status)
	}
	return s.write(func(txn *memdb.Txn) error {
		raw, err := txn.First(TableJobs, indexID, namespace, id)
		if err != nil {
			return fmt.Errorf("read job %q in namespace %q: %w", id, namespace, err)
		}
		if raw == nil {
			return fmt.Errorf("update status of job %q in namespace %q: %w", id, namespace, ErrNotFound)
		}
		existing := raw.(*structs.Job)
		if existing.Status == status && existing.StatusDescription == desc {
			return nil
		}
		updated := *existing
		updated.Status = status
		updated.StatusDescription = desc
		updated.ModifyIndex = index
		if err := txn.Insert(TableJobs, &updated); err != nil {
			return fmt.Errorf("update status of job %q in namespace %q: %w", id, namespace, err)
		}
		// The stored version is the same job; keep the two in step.
		if err := txn.Insert(TableJobVersions, &updated); err != nil {
			return fmt.Errorf("update status of job %q version %d: %w", id, updated.Version, err)
		}
		return bumpIndex(txn, index, TableJobs, TableJobVersions)
	})
}

// DeleteJob purges a job with its versions and its periodic launch.
// Its evaluations and allocations stay until garbage collection. Deleting
// a job that is not stored does nothing.
func (s *StateStore) DeleteJob(index uint64, namespace, jobID string) error {
	return s.write(func(txn *memdb.Txn) error {
		if _, err := txn.DeleteAll(TableJobs, indexID, namespace, jobID); err != nil {
			return fmt.Errorf("delete job %q in namespace %q: %w", jobID, namespace, err)
		}
		if _, err := txn.DeleteAll(TableJobVersions, indexJob, namespace, jobID); err != nil {
			return fmt.Errorf("delete versions of job %q in namespace %q: %w", jobID, namespace, err)
		}
		if _, err := txn.DeleteAll(TablePeriodicLaunch, indexID, namespace, jobID); err != nil {
			return fmt.Errorf("delete periodic launch of job %q in namespace %q: %w", jobID, namespace, err)
		}
		return bumpIndex(txn, index, TableJobs, TableJobVersions, TablePeriodicLaunch)
	})
}

// JobByID returns the job, or nil if there is none.
func (r *reader) JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	raw, err := r.first(ws, TableJobs, indexID, namespace, id)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "job %q in namespace %q", id, namespace)
	}
	return raw.(*structs.Job), nil
}

// JobsByIDPrefix returns the jobs of namespace (every namespace for
// AllNamespaces) whose ID starts with prefix, sorted by ID.
func (r *reader) JobsByIDPrefix(ws memdb.WatchSet, namespace, prefix string) ([]*structs.Job, error) {
	if namespace != AllNamespaces {
		jobs, err := list[*structs.Job](r, ws, TableJobs, indexID+"_prefix", namespace, prefix)
		return jobs, wrapRead(err, "jobs with prefix %q in namespace %q", prefix, namespace)
	}
	all, err := r.Jobs(ws)
	if err != nil {
		return nil, err
	}
	var jobs []*structs.Job
	for _, job := range all {
		if strings.HasPrefix(job.ID, prefix) {
			jobs = append(jobs, job)
		}
	}
	slices.SortStableFunc(jobs, func(a, b *structs.Job) int { return strings.Compare(a.ID, b.ID) })
	return jobs, nil
}

// Jobs returns every job, sorted by namespace and ID.
func (r *reader) Jobs(ws memdb.WatchSet) ([]*structs.Job, error) {
	jobs, err := list[*structs.Job](r, ws, TableJobs, indexID)
	return jobs, wrapRead(err, "jobs")
}

// JobChildren returns the jobs launched by the job parentID, such as the
// children of a periodic job.
func (r *reader) JobChildren(ws memdb.WatchSet, namespace, parentID string) ([]*structs.Job, error) {
	jobs, err := list[*structs.Job](r, ws, TableJobs, indexParent, namespace, parentID)
	return jobs, wrapRead(err, "children of job %q in namespace %q", parentID, namespace)
}

// wrapRead adds what was being read to a read error; nil stays nil.
func wrapRead(err error, what string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read %s: %w", fmt.Sprintf(what, args...), err)
}
