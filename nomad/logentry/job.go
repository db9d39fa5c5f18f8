package logentry

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// JobRegister registers or updates a job, with the evaluation that
// schedules it (none for a periodic parent job).
type JobRegister struct {
	Job  *structs.Job
	Eval *structs.Evaluation `json:",omitempty"`

	// EnforceIndex makes the write conditional: the stored job's
	// JobModifyIndex must equal JobModifyIndex, 0 meaning no stored job.
	// The leader checks it too, but only the FSM sees the state the entry
	// actually lands on.
	EnforceIndex   bool   `json:",omitempty"`
	JobModifyIndex uint64 `json:",omitempty"`

	// NamespaceChecked is set by leaders that know namespaces: the job's
	// namespace must then exist where the entry lands. An entry written
	// before namespaces were stored lacks it, and its namespace is
	// created if need be, so that an old log replays as it did.
	NamespaceChecked bool `json:",omitempty"`
}

func (e *JobRegister) MessageType() MessageType { return MsgJobRegister }

func (e *JobRegister) Validate() error {
	if e.Job == nil {
		return invalidf("job register: no job")
	}
	if err := e.Job.Validate(); err != nil {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, fmt.Errorf("job %q: %w", e.Job.ID, err))
	}
	return validateEvals(e.WrittenEvals())
}

func (e *JobRegister) ApplyTo(s *state.StateStore, index uint64) error {
	if !e.NamespaceChecked {
		if err := createLegacyNamespace(s, index, e.Job.Namespace); err != nil {
			return err
		}
	}
	if e.EnforceIndex {
		existing, err := s.JobByID(nil, e.Job.Namespace, e.Job.ID)
		if err != nil {
			return err
		}
		if err := CheckJobModifyIndex(existing, e.JobModifyIndex); err != nil {
			return err
		}
	}
	if err := s.UpsertJob(index, e.Job); err != nil {
		if errors.Is(err, state.ErrNoNamespace) {
			return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
		}
		return err
	}
	if e.Eval == nil {
		return nil
	}
	// The store has settled the job's modify index; the evaluation
	// schedules that version.
	e.Eval.JobModifyIndex = e.Job.JobModifyIndex
	return s.UpsertEvals(index, []*structs.Evaluation{e.Eval})
}

func (e *JobRegister) WrittenEvals() []*structs.Evaluation { return optionalEval(e.Eval) }

// createLegacyNamespace creates the namespace of a job registered by an
// entry from before namespaces were stored, when it does not exist.
func createLegacyNamespace(s *state.StateStore, index uint64, name string) error {
	ns, err := s.NamespaceByName(nil, name)
	if err != nil || ns != nil {
		return err
	}
	return s.UpsertNamespaces(index, []*structs.Namespace{{
		Name:        name,
		Description: "created for the jobs it held before namespaces were stored",
	}})
}

// enforceIndexPrefix starts the errors of an index-enforcing register, in
// Nomad's wording: Nomad's client exports it as
// RegisterEnforceIndexErrPrefix and its CLI matches it.
const enforceIndexPrefix = "Enforcing job modify index"

// CheckJobModifyIndex compares a stored job (nil if none) with the
// JobModifyIndex an index-enforcing register expects.
func CheckJobModifyIndex(existing *structs.Job, want uint64) error {
	switch {
	case existing == nil && want != 0:
		return nomadrpc.WithKind(nomadrpc.ErrIndexConflict, fmt.Errorf("%s %d: job does not exist", enforceIndexPrefix, want))
	case existing != nil && existing.JobModifyIndex != want:
		return nomadrpc.WithKind(nomadrpc.ErrIndexConflict, fmt.Errorf(
			"%s %d: job exists with conflicting job modify index: %d",
			enforceIndexPrefix, want, existing.JobModifyIndex))
	}
	return nil
}

// JobDeregister stops a job (it stays, marked Stop) or purges it, with
// the evaluation that stops its allocations.
type JobDeregister struct {
	Namespace string
	JobID     string
	Purge     bool                `json:",omitempty"`
	Eval      *structs.Evaluation `json:",omitempty"`
}

func (e *JobDeregister) MessageType() MessageType { return MsgJobDeregister }

func (e *JobDeregister) Validate() error {
	if e.Namespace == "" || e.JobID == "" {
		return invalidf("job deregister: namespace and job ID are required")
	}
	return validateEvals(e.WrittenEvals())
}

func (e *JobDeregister) ApplyTo(s *state.StateStore, index uint64) error {
	job, err := s.JobByID(nil, e.Namespace, e.JobID)
	if err != nil {
		return err
	}
	if job == nil {
		return fmt.Errorf("deregister job %q in namespace %q: %w", e.JobID, e.Namespace, nomadrpc.ErrNotFound)
	}
	if e.Purge {
		err = s.DeleteJob(index, e.Namespace, e.JobID)
	} else if !job.Stop {
		stopped := job.Copy()
		stopped.Stop = true
		err = s.UpsertJob(index, stopped)
	}
	if err != nil {
		return err
	}
	if e.Eval == nil {
		return nil
	}
	e.Eval.JobModifyIndex = index
	return s.UpsertEvals(index, []*structs.Evaluation{e.Eval})
}

func (e *JobDeregister) WrittenEvals() []*structs.Evaluation { return optionalEval(e.Eval) }

// JobStatusUpdate sets the status the server derived for a job.
type JobStatusUpdate struct {
	Namespace   string
	JobID       string
	Status      string
	Description string `json:",omitempty"`
}

func (e *JobStatusUpdate) MessageType() MessageType { return MsgJobStatusUpdate }

func (e *JobStatusUpdate) Validate() error {
	if e.Namespace == "" || e.JobID == "" {
		return invalidf("job status update: namespace and job ID are required")
	}
	switch e.Status {
	case structs.JobStatusPending, structs.JobStatusRunning, structs.JobStatusDead:
		return nil
	}
	return invalidf("job status update: unknown status %q", e.Status)
}

func (e *JobStatusUpdate) ApplyTo(s *state.StateStore, index uint64) error {
	return s.UpdateJobStatus(index, e.Namespace, e.JobID, e.Status, e.Description)
}

func (e *JobStatusUpdate) WrittenEvals() []*structs.Evaluation { return nil }

// optionalEval turns an entry's optional evaluation into a list.
func optionalEval(e *structs.Evaluation) []*structs.Evaluation {
	if e == nil {
		return nil
	}
	return []*structs.Evaluation{e}
}

// validateEvals checks the evaluations an entry carries.
func validateEvals(evals []*structs.Evaluation) error {
	var errs []error
	for i, e := range evals {
		if err := validateEval(e); err != nil {
			errs = append(errs, fmt.Errorf("evaluation %d: %w", i, err))
		}
	}
	if len(errs) > 0 {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, errors.Join(errs...))
	}
	return nil
}

func validateEval(e *structs.Evaluation) error {
	switch {
	case e == nil:
		return errors.New("evaluation is nil")
	case e.ID == "":
		return errors.New("evaluation has no ID")
	case e.Namespace == "":
		return fmt.Errorf("evaluation %q has no namespace", e.ID)
	case e.JobID == "":
		return fmt.Errorf("evaluation %q has no job ID", e.ID)
	}
	switch e.Status {
	case structs.EvalStatusBlocked, structs.EvalStatusPending, structs.EvalStatusComplete,
		structs.EvalStatusFailed, structs.EvalStatusCancelled:
		return nil
	}
	return fmt.Errorf("evaluation %q has unknown status %q", e.ID, e.Status)
}
