package nomad

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// JobRegisterEntry registers or updates a job, with the evaluation that
// schedules it (none for a periodic parent job).
type JobRegisterEntry struct {
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

func (e *JobRegisterEntry) messageType() MessageType { return MsgJobRegister }

func (e *JobRegisterEntry) validate() error {
	if e.Job == nil {
		return invalidf("job register: no job")
	}
	if err := e.Job.Validate(); err != nil {
		return nomadrpc.WithKind(ErrInvalidRequest, fmt.Errorf("job %q: %w", e.Job.ID, err))
	}
	return validateEvals(e.evals())
}

func (e *JobRegisterEntry) applyTo(s *state.StateStore, index uint64) error {
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
		if err := checkJobModifyIndex(existing, e.JobModifyIndex); err != nil {
			return err
		}
	}
	if err := s.UpsertJob(index, e.Job); err != nil {
		if errors.Is(err, state.ErrNoNamespace) {
			return nomadrpc.WithKind(ErrInvalidRequest, err)
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

func (e *JobRegisterEntry) evals() []*structs.Evaluation { return optionalEval(e.Eval) }

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

// checkJobModifyIndex compares a stored job (nil if none) with the
// JobModifyIndex an index-enforcing register expects.
func checkJobModifyIndex(existing *structs.Job, want uint64) error {
	switch {
	case existing == nil && want != 0:
		return nomadrpc.WithKind(ErrIndexConflict, fmt.Errorf("%s %d: job does not exist", enforceIndexPrefix, want))
	case existing != nil && existing.JobModifyIndex != want:
		return nomadrpc.WithKind(ErrIndexConflict, fmt.Errorf(
			"%s %d: job exists with conflicting job modify index: %d",
			enforceIndexPrefix, want, existing.JobModifyIndex))
	}
	return nil
}

// JobDeregisterEntry stops a job (it stays, marked Stop) or purges it, with
// the evaluation that stops its allocations.
type JobDeregisterEntry struct {
	Namespace string
	JobID     string
	Purge     bool                `json:",omitempty"`
	Eval      *structs.Evaluation `json:",omitempty"`
}

func (e *JobDeregisterEntry) messageType() MessageType { return MsgJobDeregister }

func (e *JobDeregisterEntry) validate() error {
	if e.Namespace == "" || e.JobID == "" {
		return invalidf("job deregister: namespace and job ID are required")
	}
	return validateEvals(e.evals())
}

func (e *JobDeregisterEntry) applyTo(s *state.StateStore, index uint64) error {
	job, err := s.JobByID(nil, e.Namespace, e.JobID)
	if err != nil {
		return err
	}
	if job == nil {
		return fmt.Errorf("deregister job %q in namespace %q: %w", e.JobID, e.Namespace, ErrNotFound)
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

func (e *JobDeregisterEntry) evals() []*structs.Evaluation { return optionalEval(e.Eval) }

// JobStatusUpdateEntry sets the status the server derived for a job.
type JobStatusUpdateEntry struct {
	Namespace   string
	JobID       string
	Status      string
	Description string `json:",omitempty"`
}

func (e *JobStatusUpdateEntry) messageType() MessageType { return MsgJobStatusUpdate }

func (e *JobStatusUpdateEntry) validate() error {
	if e.Namespace == "" || e.JobID == "" {
		return invalidf("job status update: namespace and job ID are required")
	}
	switch e.Status {
	case structs.JobStatusPending, structs.JobStatusRunning, structs.JobStatusDead:
		return nil
	}
	return invalidf("job status update: unknown status %q", e.Status)
}

func (e *JobStatusUpdateEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.UpdateJobStatus(index, e.Namespace, e.JobID, e.Status, e.Description)
}

func (e *JobStatusUpdateEntry) evals() []*structs.Evaluation { return nil }

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
		return nomadrpc.WithKind(ErrInvalidRequest, errors.Join(errs...))
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
