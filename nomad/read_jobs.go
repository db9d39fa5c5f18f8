package nomad

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// JobListEntry is a job as a list of jobs shows it: with its allocation
// counts (nil when unknown).
type JobListEntry struct {
	Job     *structs.Job
	Summary *structs.JobSummary
}

// ListJobs returns the jobs of q.Namespace whose ID starts with q.Prefix,
// sorted by ID, each with its summary: those of the namespaces where q.ACL
// may list jobs. A summary counts allocations and
// evaluations, so the list is at the index of all three tables.
func (s *Server) ListJobs(ctx context.Context, q QueryOptions) ([]JobListEntry, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]JobListEntry, uint64, error) {
		jobs, err := st.JobsByIDPrefix(ws, q.Namespace, q.Prefix)
		if err != nil {
			return nil, 0, err
		}
		jobs = visible(q, jobs, func(j *structs.Job) string { return j.Namespace }, acl.CapListJobs)
		entries := make([]JobListEntry, 0, len(jobs))
		for _, job := range jobs {
			summary, err := st.JobSummaryByID(ws, job.Namespace, job.ID)
			if err != nil {
				return nil, 0, err
			}
			entries = append(entries, JobListEntry{Job: job, Summary: summary})
		}
		return resultAt(st, entries, nil, state.TableJobs, state.TableAllocs, state.TableEvals)
	})
}

// GetJob returns the job of q.Namespace with the given ID, nil when there
// is none.
func (s *Server) GetJob(ctx context.Context, id string, q QueryOptions) (*structs.Job, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.Job, uint64, error) {
		job, err := st.JobByID(ws, q.Namespace, id)
		return objectAt(st, job, err, jobModifyIndex, state.TableJobs)
	})
}

func jobModifyIndex(j *structs.Job) uint64 { return j.ModifyIndex }

// JobExists reports whether the job of q.Namespace with the given ID
// exists, at the index of the jobs table: the answer of reads about a job
// that Drover keeps nothing for (its deployments).
func (s *Server) JobExists(ctx context.Context, id string, q QueryOptions) (bool, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (bool, uint64, error) {
		job, err := st.JobByID(ws, q.Namespace, id)
		if err != nil {
			return false, 0, err
		}
		index, err := st.Index(state.TableJobs)
		return job != nil, index, err
	})
}

// JobAllocations returns the allocations of the job of q.Namespace with the
// given ID. Unless all is set, only those of the job as it now exists
// count, not those left from an earlier job of the same ID that was purged.
func (s *Server) JobAllocations(ctx context.Context, id string, all bool, q QueryOptions) ([]*structs.Allocation, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Allocation, uint64, error) {
		job, err := st.JobByID(ws, q.Namespace, id)
		if err != nil {
			return nil, 0, err
		}
		allocs, err := st.AllocsByJob(ws, q.Namespace, id)
		if err != nil {
			return nil, 0, err
		}
		if !all && job != nil {
			allocs = ofJobInstance(allocs, job)
		}
		return resultAt(st, allocs, nil, state.TableAllocs, state.TableJobs)
	})
}

// ofJobInstance keeps the allocations that run job, as created (not an
// earlier, purged job of the same ID).
func ofJobInstance(allocs []*structs.Allocation, job *structs.Job) []*structs.Allocation {
	out := make([]*structs.Allocation, 0, len(allocs))
	for _, alloc := range allocs {
		if alloc.Job != nil && alloc.Job.CreateIndex != job.CreateIndex {
			continue
		}
		out = append(out, alloc)
	}
	return out
}

// JobEvaluations returns the evaluations of the job of q.Namespace with the
// given ID.
func (s *Server) JobEvaluations(ctx context.Context, id string, q QueryOptions) ([]*structs.Evaluation, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Evaluation, uint64, error) {
		evals, err := st.EvalsByJob(ws, q.Namespace, id)
		return resultAt(st, evals, err, state.TableEvals)
	})
}

// GetJobSummary returns the allocation counts of the job of q.Namespace
// with the given ID, nil when there is no such job. The counts come from
// the jobs, allocations and evaluations, so they are at the index of all
// three tables.
func (s *Server) GetJobSummary(ctx context.Context, id string, q QueryOptions) (*structs.JobSummary, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.JobSummary, uint64, error) {
		summary, err := st.JobSummaryByID(ws, q.Namespace, id)
		return resultAt(st, summary, err, state.TableJobs, state.TableAllocs, state.TableEvals)
	})
}

// JobVersions returns every stored version of the job of q.Namespace with
// the given ID, newest first; none when there is no such job.
func (s *Server) JobVersions(ctx context.Context, id string, q QueryOptions) ([]*structs.Job, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Job, uint64, error) {
		versions, err := st.JobVersionsByID(ws, q.Namespace, id)
		return resultAt(st, versions, err, state.TableJobVersions, state.TableJobs)
	})
}

// JobRunTimes returns the run-time accounting of the job of q.Namespace
// with the given ID (structs.RunTimes), from the allocations of the job as
// created; nil when there is no such job.
func (s *Server) JobRunTimes(ctx context.Context, id string, q QueryOptions) (*structs.JobRunTimes, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.JobRunTimes, uint64, error) {
		job, err := st.JobByID(ws, q.Namespace, id)
		if err != nil || job == nil {
			return resultAt(st, (*structs.JobRunTimes)(nil), err, state.TableJobs)
		}
		allocs, err := st.AllocsByJob(ws, q.Namespace, id)
		if err != nil {
			return nil, 0, err
		}
		rt := structs.RunTimes(job.Namespace, job.ID, ofJobInstance(allocs, job))
		return resultAt(st, rt, nil, state.TableAllocs, state.TableJobs)
	})
}
