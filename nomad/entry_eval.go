package nomad

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// EvalUpdateEntry creates or updates evaluations.
type EvalUpdateEntry struct {
	Evals []*structs.Evaluation
}

func (e *EvalUpdateEntry) messageType() MessageType { return MsgEvalUpdate }

func (e *EvalUpdateEntry) validate() error {
	if len(e.Evals) == 0 {
		return invalidf("eval update: no evaluations")
	}
	return validateEvals(e.Evals)
}

func (e *EvalUpdateEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.UpsertEvals(index, e.Evals)
}

func (e *EvalUpdateEntry) evals() []*structs.Evaluation { return e.Evals }

// EvalDeleteEntry removes evaluations and allocations (garbage collection).
type EvalDeleteEntry struct {
	Evals  []string `json:",omitempty"`
	Allocs []string `json:",omitempty"`
}

func (e *EvalDeleteEntry) messageType() MessageType { return MsgEvalDelete }

func (e *EvalDeleteEntry) validate() error {
	if len(e.Evals) == 0 && len(e.Allocs) == 0 {
		return invalidf("eval delete: no evaluation or allocation IDs")
	}
	return nil
}

func (e *EvalDeleteEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.DeleteEvals(index, e.Evals, e.Allocs)
}

func (e *EvalDeleteEntry) evals() []*structs.Evaluation { return nil }
