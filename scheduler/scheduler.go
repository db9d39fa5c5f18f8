package scheduler

import (
	"fmt"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"
)

// State is the read-only view of the cluster state a scheduler reads.
// *state.StateStore and *state.StateSnapshot satisfy it. The scheduler
// passes a nil watch set and never modifies what it reads.
type State interface {
	// JobByID returns the job, or nil if it is not stored (purged).
	JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error)
	// Nodes returns every node.
	Nodes(ws memdb.WatchSet) ([]*structs.Node, error)
	// AllocsByJob returns the allocations of a job, of every version.
	AllocsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Allocation, error)
	// AllocsByNode returns the allocations placed on a node, of every job.
	AllocsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error)
	// LatestIndex returns the index of the latest write.
	LatestIndex() (uint64, error)
	// LatestDeploymentByJob returns the job's newest deployment, or nil.
	LatestDeploymentByJob(ws memdb.WatchSet, namespace, jobID string) (*structs.Deployment, error)
}

// Planner is how a scheduler commits its decisions. The server implements
// it.
type Planner interface {
	// SubmitPlan commits what it can of plan. When it commits only part of
	// the plan it should return a State that reflects what was committed
	// (at least up to the result's RefreshIndex); the scheduler retries
	// against it a bounded number of times, then gives up with a
	// "max-plan-attempts" follow-up evaluation.
	SubmitPlan(plan *structs.Plan) (*structs.PlanResult, State, error)

	// UpdateEval records the outcome of the evaluation being processed:
	// its Status (complete or failed), StatusDescription, FailedTGAllocs,
	// QueuedAllocations, BlockedEval, NextEval and SnapshotIndex.
	UpdateEval(eval *structs.Evaluation) error

	// CreateEval stores a new evaluation: a follow-up that reschedules
	// failed allocations (Status pending, WaitUntil set: it must not run
	// before then), a blocked evaluation (Status blocked: run it again when
	// capacity changes, that is when a node registers or changes or an
	// allocation becomes terminal), or a max-plan-attempts retry (Status
	// pending).
	CreateEval(eval *structs.Evaluation) error

	// ReblockEval puts back a blocked evaluation that was run again and
	// still cannot place everything. The evaluation keeps its ID and
	// Status blocked, with updated FailedTGAllocs and QueuedAllocations.
	ReblockEval(eval *structs.Evaluation) error
}

// Scheduler processes evaluations of one job type.
type Scheduler interface {
	// Process reads the state, submits at most a few plans and updates
	// the evaluation. An error means the evaluation was not processed
	// and may be retried.
	Process(eval *structs.Evaluation) error
}

// NewScheduler returns the scheduler for a job type: "batch", "service",
// "system" or "sysbatch". A nil logger discards.
func NewScheduler(jobType string, logger hclog.Logger, state State, planner Planner) (Scheduler, error) {
	return newScheduler(jobType, logger, state, planner, time.Now)
}

// newScheduler is NewScheduler with the clock that reschedule delays are
// measured on.
func newScheduler(jobType string, logger hclog.Logger, state State, planner Planner, now func() time.Time) (Scheduler, error) {
	if state == nil {
		return nil, fmt.Errorf("new %s scheduler: state is nil", jobType)
	}
	if planner == nil {
		return nil, fmt.Errorf("new %s scheduler: planner is nil", jobType)
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	base := scheduler{
		jobType: jobType,
		logger:  logger.Named(jobType),
		state:   state,
		planner: planner,
		now:     now,
	}
	switch jobType {
	case structs.JobTypeBatch, structs.JobTypeService:
		return &genericScheduler{scheduler: base}, nil
	case structs.JobTypeSystem, structs.JobTypeSysbatch:
		return &systemScheduler{scheduler: base}, nil
	default:
		return nil, fmt.Errorf("new scheduler: unknown job type %q", jobType)
	}
}
