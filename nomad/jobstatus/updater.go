package jobstatus

import (
	"context"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// Updater keeps every job's status in step with its allocations
// and evaluations. The apply observer marks the jobs an entry touched; the
// updater, on the leader, derives their status from the state and writes
// the ones that changed.
type Updater struct {
	logger hclog.Logger
	store  func() *state.StateStore
	write  func(*logentry.JobStatusUpdate) error

	mu      sync.Mutex
	enabled bool
	jobs    map[statusKey]struct{}
	allocs  map[string]struct{} // allocation IDs whose job is not known yet
	signal  chan struct{}
}

func NewUpdater(logger hclog.Logger, store func() *state.StateStore, write func(*logentry.JobStatusUpdate) error) *Updater {
	return &Updater{
		logger: logger,
		store:  store,
		write:  write,
		jobs:   make(map[statusKey]struct{}),
		allocs: make(map[string]struct{}),
		signal: make(chan struct{}, 1),
	}
}

func (u *Updater) SetEnabled(enabled bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.enabled = enabled
	u.jobs = make(map[statusKey]struct{})
	u.allocs = make(map[string]struct{})
}

// MarkJob asks for a job's status to be derived again. It never blocks.
func (u *Updater) MarkJob(namespace, id string) {
	u.mark(func() { u.jobs[statusKey{namespace, id}] = struct{}{} })
}

// MarkAlloc asks for the status of an allocation's job to be derived
// again. It never blocks.
func (u *Updater) MarkAlloc(id string) {
	u.mark(func() { u.allocs[id] = struct{}{} })
}

func (u *Updater) mark(add func()) {
	u.mu.Lock()
	if !u.enabled {
		u.mu.Unlock()
		return
	}
	add()
	u.mu.Unlock()
	select {
	case u.signal <- struct{}{}:
	default:
	}
}

// Run updates the marked jobs until ctx ends.
func (u *Updater) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.signal:
			u.flush(ctx)
		}
	}
}

func (u *Updater) flush(ctx context.Context) {
	u.mu.Lock()
	jobs, allocs := u.jobs, u.allocs
	u.jobs = make(map[statusKey]struct{})
	u.allocs = make(map[string]struct{})
	u.mu.Unlock()

	st := u.store()
	for id := range allocs {
		alloc, err := st.AllocByID(nil, id)
		if err != nil || alloc == nil {
			continue
		}
		jobs[statusKey{alloc.Namespace, alloc.JobID}] = struct{}{}
	}
	for key := range jobs {
		if ctx.Err() != nil {
			return
		}
		if err := u.update(st, key); err != nil {
			u.logger.Warn("update job status", "namespace", key.namespace, "job_id", key.id, "error", err)
		}
	}
}

// update writes a job's derived status if it differs from the stored one.
func (u *Updater) update(st *state.StateStore, key statusKey) error {
	job, err := st.JobByID(nil, key.namespace, key.id)
	if err != nil || job == nil {
		return err
	}
	status, err := deriveJobStatus(st, job)
	if err != nil {
		return err
	}
	if status == job.Status {
		return nil
	}
	return u.write(&logentry.JobStatusUpdate{Namespace: job.Namespace, JobID: job.ID, Status: status})
}

// jobStatusReader is what deriving a job's status reads.
type jobStatusReader interface {
	AllocsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Allocation, error)
	EvalsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Evaluation, error)
}

// deriveJobStatus derives a job's status as Nomad does:
//   - a periodic or parameterized parent runs until it is stopped, then
//     it is dead;
//   - a job with an allocation that is not terminal is running;
//   - a system job that is not stopped is running;
//   - otherwise a job with a pending or blocked evaluation is pending;
//   - otherwise a stopped job, or one whose allocations and evaluations
//     are all terminal, is dead;
//   - and a job with neither is pending.
//
// Allocations and evaluations left from an earlier job of the same ID,
// purged since, do not count.
func deriveJobStatus(st jobStatusReader, job *structs.Job) (string, error) {
	if job.LaunchesChildren() {
		if job.Stop {
			return structs.JobStatusDead, nil
		}
		return structs.JobStatusRunning, nil
	}
	allocs, err := st.AllocsByJob(nil, job.Namespace, job.ID)
	if err != nil {
		return "", err
	}
	hasAlloc := false
	for _, a := range allocs {
		if a.Job != nil && a.Job.CreateIndex != job.CreateIndex {
			continue
		}
		hasAlloc = true
		if !a.TerminalStatus() {
			return structs.JobStatusRunning, nil
		}
	}
	if job.Type == structs.JobTypeSystem && !job.Stop {
		return structs.JobStatusRunning, nil
	}
	evals, err := st.EvalsByJob(nil, job.Namespace, job.ID)
	if err != nil {
		return "", err
	}
	hasEval := false
	for _, e := range evals {
		if e.CreateIndex < job.CreateIndex {
			continue
		}
		if !e.TerminalStatus() {
			return structs.JobStatusPending, nil
		}
		hasEval = true
	}
	if job.Stop || hasAlloc || hasEval {
		return structs.JobStatusDead, nil
	}
	return structs.JobStatusPending, nil
}

// statusKey names a job whose status is to be derived again.
type statusKey struct{ namespace, id string }
