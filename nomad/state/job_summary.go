package state

import (
	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
)

// JobSummaryByID counts a job's allocations per task group by client
// status, or returns nil if the job is not stored. Allocations and
// evaluations left from an earlier job of the same ID, purged since, do
// not count. Queued comes from the latest evaluation that recorded what
// it could not place; a stopped job has nothing queued. A periodic job
// also counts its children by status.
func (r *reader) JobSummaryByID(ws memdb.WatchSet, namespace, id string) (*structs.JobSummary, error) {
	// The counts come from several reads; make them all at one point in time.
	r = &reader{db: r.db.Snapshot()}
	job, err := r.JobByID(ws, namespace, id)
	if err != nil || job == nil {
		return nil, err
	}
	summary := &structs.JobSummary{
		JobID:       job.ID,
		Namespace:   job.Namespace,
		Summary:     make(map[string]structs.TaskGroupSummary, len(job.TaskGroups)),
		CreateIndex: job.CreateIndex,
		ModifyIndex: job.ModifyIndex,
	}
	for _, tg := range job.TaskGroups {
		summary.Summary[tg.Name] = structs.TaskGroupSummary{}
	}
	if err := r.countAllocs(ws, job, summary); err != nil {
		return nil, err
	}
	if err := r.countQueued(ws, job, summary); err != nil {
		return nil, err
	}
	if err := r.countChildren(ws, job, summary); err != nil {
		return nil, err
	}
	return summary, nil
}

func (r *reader) countAllocs(ws memdb.WatchSet, job *structs.Job, summary *structs.JobSummary) error {
	allocs, err := r.AllocsByJob(ws, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	for _, alloc := range allocs {
		if alloc.Job != nil && alloc.Job.CreateIndex != job.CreateIndex {
			continue
		}
		tg := summary.Summary[alloc.TaskGroup]
		switch alloc.ClientStatus {
		case structs.AllocClientStatusPending:
			tg.Starting++
		case structs.AllocClientStatusRunning:
			tg.Running++
		case structs.AllocClientStatusComplete:
			tg.Complete++
		case structs.AllocClientStatusFailed:
			tg.Failed++
		case structs.AllocClientStatusLost:
			tg.Lost++
		case structs.AllocClientStatusUnknown:
			tg.Unknown++
		}
		summary.Summary[alloc.TaskGroup] = tg
		summary.ModifyIndex = max(summary.ModifyIndex, alloc.ModifyIndex)
	}
	return nil
}

func (r *reader) countQueued(ws memdb.WatchSet, job *structs.Job, summary *structs.JobSummary) error {
	evals, err := r.EvalsByJob(ws, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	var latest *structs.Evaluation
	for _, eval := range evals {
		if eval.CreateIndex < job.CreateIndex {
			continue
		}
		countPendingExpired(eval, summary)
		if eval.QueuedAllocations == nil {
			continue
		}
		if latest == nil || eval.ModifyIndex > latest.ModifyIndex {
			latest = eval
		}
	}
	if latest == nil {
		return nil
	}
	summary.ModifyIndex = max(summary.ModifyIndex, latest.ModifyIndex)
	for name, queued := range latest.QueuedAllocations {
		tg, ok := summary.Summary[name]
		if !ok {
			continue
		}
		if job.Stop {
			queued = 0
		}
		tg.Queued = queued
		summary.Summary[name] = tg
	}
	return nil
}

// countPendingExpired adds the placements eval gave up for
// max_pending_duration to its groups' PendingExpired.
func countPendingExpired(eval *structs.Evaluation, summary *structs.JobSummary) {
	for name, n := range eval.PendingExpired {
		tg, ok := summary.Summary[name]
		if !ok || n <= 0 {
			continue
		}
		tg.PendingExpired += n
		summary.Summary[name] = tg
		summary.ModifyIndex = max(summary.ModifyIndex, eval.ModifyIndex)
	}
}

func (r *reader) countChildren(ws memdb.WatchSet, job *structs.Job, summary *structs.JobSummary) error {
	children, err := r.JobChildren(ws, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	if job.Periodic == nil && job.ParameterizedJob == nil && len(children) == 0 {
		return nil
	}
	counts := &structs.JobChildrenSummary{}
	for _, child := range children {
		switch child.Status {
		case structs.JobStatusRunning:
			counts.Running++
		case structs.JobStatusDead:
			counts.Dead++
		default:
			counts.Pending++
		}
		summary.ModifyIndex = max(summary.ModifyIndex, child.ModifyIndex)
	}
	summary.Children = counts
	return nil
}
