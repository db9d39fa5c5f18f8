package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/periodic"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/scheduler"
	"github.com/drover-io/drover/structs"
)

// JobPlanRequest asks what registering a job would do, without doing it.
// The job has been canonicalised.
type JobPlanRequest struct {
	Job *structs.Job
	// Diff asks for how the job differs from the stored one.
	Diff bool
}

// JobPlanResponse is the outcome of a dry run; the HTTP layer builds
// Nomad's api.JobPlanResponse from it.
type JobPlanResponse struct {
	// JobModifyIndex is the stored job's, 0 when there is none: what
	// `job run -check-index` takes to register exactly this plan's job.
	JobModifyIndex uint64
	// CreatedEvals are the evaluations the scheduler would create, such as
	// a blocked one for allocations that cannot be placed.
	CreatedEvals []*structs.Evaluation
	Diff         *structs.JobDiff
	// DesiredTGUpdates counts, per task group, the allocations the plan
	// would create, stop, update or leave alone.
	DesiredTGUpdates map[string]*structs.DesiredUpdates
	FailedTGAllocs   map[string]*structs.AllocMetric
	// NextPeriodicLaunch is when a periodic job would next launch, the zero
	// time for other jobs.
	NextPeriodicLaunch time.Time
	Warnings           string
	// Index is the state index the dry run read.
	Index uint64
}

// PlanJob validates a job and runs its scheduler against a snapshot of this
// server's state with the job in place of the stored one, as a register
// would, and reports what the scheduler would do. Nothing is written: the
// plan is recorded, not committed, and no evaluation is stored. A dry run
// needs no leader; any server answers from its own state.
func (s *Server) PlanJob(ctx context.Context, req *JobPlanRequest) (*JobPlanResponse, error) {
	if req == nil || req.Job == nil {
		return nil, invalidf("job plan: no job")
	}
	if err := s.authorize(ctx, func(a *acl.ACL) error { return auth.Plan(a, req.Job.Namespace) }); err != nil {
		return nil, err
	}
	job := req.Job.Copy()
	if err := s.checkSubmittedJob(ctx, job); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	snap, err := s.State().Snapshot()
	if err != nil {
		return nil, err
	}
	index, err := snap.LatestIndex()
	if err != nil {
		return nil, err
	}
	if err := checkJobNamespace(snap, job); err != nil {
		return nil, err
	}
	existing, err := snap.JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	candidate, err := planCandidate(existing, job, index, now)
	if err != nil {
		return nil, fmt.Errorf("job %q: %w", job.ID, err)
	}
	resp := &JobPlanResponse{Index: index}
	if existing != nil {
		resp.JobModifyIndex = existing.JobModifyIndex
	}
	if candidate.LaunchesPeriodically() {
		if resp.NextPeriodicLaunch, err = periodic.NextLaunch(candidate, now); err != nil {
			return nil, nomadrpc.WithKind(ErrInvalidRequest, fmt.Errorf("job %q: %w", job.ID, err))
		}
	}

	run, err := s.dryRun(snap, candidate, now)
	if err != nil {
		return nil, fmt.Errorf("plan job %q: %w", job.ID, err)
	}
	resp.DesiredTGUpdates = run.updates
	resp.CreatedEvals = run.planner.created
	if out := run.planner.outcome; out != nil && len(out.FailedTGAllocs) > 0 {
		resp.FailedTGAllocs = out.FailedTGAllocs
	}
	if req.Diff {
		if resp.Diff, err = existing.Diff(candidate, true); err != nil {
			return nil, fmt.Errorf("plan job %q: %w", job.ID, err)
		}
		annotateDiff(resp.Diff, existing, candidate, run.updates)
	}
	return resp, nil
}

// planCandidate is the job as the store would hold it once registered over
// existing (nil: a new job) at the next index: the same CreateIndex, and a
// new Version and JobModifyIndex only when the specification changed.
func planCandidate(existing, job *structs.Job, index uint64, now time.Time) (*structs.Job, error) {
	c := job.Copy()
	next := index + 1
	c.ModifyIndex = next
	c.SubmitTime = now.UnixNano()
	if existing == nil {
		c.CreateIndex, c.JobModifyIndex, c.Version = next, next, 0
		c.Status = structs.JobStatusPending
		return c, nil
	}
	changed, err := state.SpecChanged(existing, c)
	if err != nil {
		return nil, err
	}
	c.CreateIndex = existing.CreateIndex
	c.Status = existing.Status
	if changed {
		c.Version, c.JobModifyIndex = existing.Version+1, next
	} else {
		c.Version, c.JobModifyIndex = existing.Version, existing.JobModifyIndex
	}
	return c, nil
}

// dryRunResult is what one dry run of a scheduler recorded.
type dryRunResult struct {
	planner *recordingPlanner
	updates map[string]*structs.DesiredUpdates
}

// dryRun runs the scheduler of the candidate's type over snap, where the
// candidate replaces the stored job, on an evaluation a register would
// create.
func (s *Server) dryRun(snap *state.StateSnapshot, candidate *structs.Job, now time.Time) (*dryRunResult, error) {
	existing, err := snap.AllocsByJob(nil, candidate.Namespace, candidate.ID)
	if err != nil {
		return nil, err
	}
	eval := newJobEval(candidate, structs.EvalTriggerJobRegister, now.UnixNano())
	eval.JobModifyIndex = candidate.JobModifyIndex
	planner := &recordingPlanner{}
	view := &candidateState{State: snap, job: candidate}
	sched, err := scheduler.NewScheduler(candidate.Type, s.logger.Named("plan"), view, planner)
	if err != nil {
		return nil, err
	}
	if err := sched.Process(eval); err != nil {
		return nil, err
	}
	return &dryRunResult{
		planner: planner,
		updates: scheduler.DesiredUpdates(candidate, existing, planner.plan),
	}, nil
}

// candidateState is a state in which job stands in for the stored job of
// its namespace and ID.
type candidateState struct {
	scheduler.State
	job *structs.Job
}

// JobByID implements scheduler.State.
func (c *candidateState) JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	if namespace == c.job.Namespace && id == c.job.ID {
		return c.job, nil
	}
	return c.State.JobByID(ws, namespace, id)
}

// recordingPlanner is a planner that commits nothing: every plan is taken
// as fully committed, and evaluations are recorded instead of stored.
type recordingPlanner struct {
	plan    *structs.Plan
	outcome *structs.Evaluation
	created []*structs.Evaluation
}

var _ scheduler.Planner = (*recordingPlanner)(nil)

// SubmitPlan implements scheduler.Planner.
func (p *recordingPlanner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	p.plan = plan
	return &structs.PlanResult{NodeUpdate: plan.NodeUpdate, NodeAllocation: plan.NodeAllocation}, nil, nil
}

// UpdateEval implements scheduler.Planner.
func (p *recordingPlanner) UpdateEval(eval *structs.Evaluation) error {
	p.outcome = eval
	return nil
}

// CreateEval implements scheduler.Planner.
func (p *recordingPlanner) CreateEval(eval *structs.Evaluation) error {
	p.created = append(p.created, eval)
	return nil
}

// ReblockEval implements scheduler.Planner.
func (p *recordingPlanner) ReblockEval(eval *structs.Evaluation) error {
	p.outcome = eval
	return nil
}
