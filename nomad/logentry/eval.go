package logentry

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// EvalUpdate creates or updates evaluations.
type EvalUpdate struct {
	Evals []*structs.Evaluation
}

func (e *EvalUpdate) MessageType() MessageType { return MsgEvalUpdate }

func (e *EvalUpdate) Validate() error {
	if len(e.Evals) == 0 {
		return invalidf("eval update: no evaluations")
	}
	return validateEvals(e.Evals)
}

func (e *EvalUpdate) ApplyTo(s *state.StateStore, index uint64) error {
	return s.UpsertEvals(index, e.Evals)
}

func (e *EvalUpdate) WrittenEvals() []*structs.Evaluation { return e.Evals }

// EvalDelete removes evaluations and allocations (garbage collection).
type EvalDelete struct {
	Evals  []string `json:",omitempty"`
	Allocs []string `json:",omitempty"`
}

func (e *EvalDelete) MessageType() MessageType { return MsgEvalDelete }

func (e *EvalDelete) Validate() error {
	if len(e.Evals) == 0 && len(e.Allocs) == 0 {
		return invalidf("eval delete: no evaluation or allocation IDs")
	}
	return nil
}

func (e *EvalDelete) ApplyTo(s *state.StateStore, index uint64) error {
	return s.DeleteEvals(index, e.Evals, e.Allocs)
}

func (e *EvalDelete) WrittenEvals() []*structs.Evaluation { return nil }
