package logentry

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// AllocUpdate writes allocations the server decided on (placements,
// stops, lost allocations), with the evaluations that go with them.
type AllocUpdate struct {
	Allocs []*structs.Allocation
	Evals  []*structs.Evaluation `json:",omitempty"`

	// Job, when set, is the job version that the allocations to run
	// without a Job of their own run (a plan's job), carried once for all
	// of them.
	Job *structs.Job `json:",omitempty"`

	// Deployment is a deployment the plan creates, DeploymentUpdates the
	// status changes it makes to others, at Now (Unix nanoseconds).
	Deployment        *structs.Deployment               `json:",omitempty"`
	DeploymentUpdates []*structs.DeploymentStatusUpdate `json:",omitempty"`
	Now               int64                             `json:",omitempty"`
}

func (e *AllocUpdate) MessageType() MessageType { return MsgAllocUpdate }

func (e *AllocUpdate) Validate() error {
	if len(e.Allocs) == 0 && e.Deployment == nil && len(e.DeploymentUpdates) == 0 {
		return invalidf("alloc update: no allocations")
	}
	var errs []error
	for i, a := range e.Allocs {
		switch {
		case a == nil:
			errs = append(errs, fmt.Errorf("allocation %d is nil", i))
		case a.ID == "":
			errs = append(errs, fmt.Errorf("allocation %d has no ID", i))
		case a.Namespace == "" || a.JobID == "":
			errs = append(errs, fmt.Errorf("allocation %q needs a namespace and a job ID", a.ID))
		}
	}
	if len(errs) > 0 {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, errors.Join(errs...))
	}
	return validateEvals(e.Evals)
}

func (e *AllocUpdate) ApplyTo(s *state.StateStore, index uint64) error {
	if err := e.shareJobs(s); err != nil {
		return err
	}
	e.attachJob()
	if e.Deployment != nil || len(e.DeploymentUpdates) > 0 {
		if err := s.ApplyDeploymentChanges(index, e.Deployment, e.DeploymentUpdates, e.Now); err != nil {
			return err
		}
	}
	if len(e.Allocs) > 0 {
		if err := s.UpsertAllocs(index, e.Allocs); err != nil {
			return err
		}
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *AllocUpdate) WrittenEvals() []*structs.Evaluation { return e.Evals }

// shareJobs makes the entry's job, and the job of every allocation that
// carries one, the store's copy of that version when the store holds it,
// and else one copy for the whole entry: the allocations of a version
// share one job, however many entries placed them. (Entries written by
// the plan applier carry the job once, in Job; older ones carried it in
// every allocation, and still replay.)
func (e *AllocUpdate) shareJobs(s *state.StateStore) error {
	shared := make(map[structs.JobVersionKey]*structs.Job)
	share := func(job *structs.Job) (*structs.Job, error) {
		if !job.Versioned() {
			return job, nil
		}
		key := job.VersionKey()
		if c, ok := shared[key]; ok {
			return c, nil
		}
		stored, err := s.JobVersionByKey(key)
		if err != nil {
			return nil, err
		}
		if stored != nil {
			job = stored
		}
		shared[key] = job
		return job, nil
	}
	var err error
	if e.Job, err = share(e.Job); err != nil {
		return err
	}
	for _, a := range e.Allocs {
		if a.Job, err = share(a.Job); err != nil {
			return err
		}
	}
	return nil
}

// attachJob gives the entry's job to the allocations to run that have
// none.
func (e *AllocUpdate) attachJob() {
	job := e.Job
	if job == nil {
		return
	}
	for _, a := range e.Allocs {
		if a.Job == nil && !a.TerminalStatus() && a.Namespace == job.Namespace && a.JobID == job.ID {
			a.Job = job
		}
	}
}

// AllocClientUpdate records what clients report about their
// allocations, with evaluations to replace failed ones.
type AllocClientUpdate struct {
	Allocs []*structs.Allocation
	Evals  []*structs.Evaluation `json:",omitempty"`
}

func (e *AllocClientUpdate) MessageType() MessageType { return MsgAllocClientUpdate }

func (e *AllocClientUpdate) Validate() error {
	if len(e.Allocs) == 0 {
		return invalidf("alloc client update: no allocations")
	}
	var errs []error
	for i, a := range e.Allocs {
		switch {
		case a == nil || a.ID == "":
			errs = append(errs, fmt.Errorf("allocation update %d has no allocation ID", i))
		case !knownClientStatus(a.ClientStatus):
			errs = append(errs, fmt.Errorf("allocation %q has unknown client status %q", a.ID, a.ClientStatus))
		}
	}
	if len(errs) > 0 {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, errors.Join(errs...))
	}
	return validateEvals(e.Evals)
}

func (e *AllocClientUpdate) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateAllocsFromClient(index, e.Allocs); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *AllocClientUpdate) WrittenEvals() []*structs.Evaluation { return e.Evals }

func knownClientStatus(status string) bool {
	switch status {
	case structs.AllocClientStatusPending, structs.AllocClientStatusRunning,
		structs.AllocClientStatusComplete, structs.AllocClientStatusFailed,
		structs.AllocClientStatusLost, structs.AllocClientStatusUnknown:
		return true
	}
	return false
}

// AllocDesiredStatus changes what the server wants of allocations,
// such as stopping them, with the evaluations that act on it.
type AllocDesiredStatus struct {
	AllocIDs []string
	Desired  string
	Desc     string                `json:",omitempty"`
	Evals    []*structs.Evaluation `json:",omitempty"`
}

func (e *AllocDesiredStatus) MessageType() MessageType { return MsgAllocDesiredStatus }

func (e *AllocDesiredStatus) Validate() error {
	if len(e.AllocIDs) == 0 {
		return invalidf("alloc desired status: no allocation IDs")
	}
	switch e.Desired {
	case structs.AllocDesiredStatusRun, structs.AllocDesiredStatusStop, structs.AllocDesiredStatusEvict:
	default:
		return invalidf("alloc desired status: unknown status %q", e.Desired)
	}
	return validateEvals(e.Evals)
}

func (e *AllocDesiredStatus) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateAllocDesiredStatus(index, e.AllocIDs, e.Desired, e.Desc); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *AllocDesiredStatus) WrittenEvals() []*structs.Evaluation { return e.Evals }

// upsertOptionalEvals writes the evaluations an entry carries, if any.
func upsertOptionalEvals(s *state.StateStore, index uint64, evals []*structs.Evaluation) error {
	if len(evals) == 0 {
		return nil
	}
	return s.UpsertEvals(index, evals)
}
