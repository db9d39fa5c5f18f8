package logentry

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// AllocTransition sets how the server wants allocations moved, with
// the evaluations that act on it.
type AllocTransition struct {
	Transitions map[string]structs.DesiredTransition
	Evals       []*structs.Evaluation `json:",omitempty"`
}

func (e *AllocTransition) MessageType() MessageType { return MsgAllocDesiredTransition }

func (e *AllocTransition) Validate() error {
	if len(e.Transitions) == 0 {
		return invalidf("alloc desired transition: no allocations")
	}
	for id := range e.Transitions {
		if id == "" {
			return invalidf("alloc desired transition: empty allocation ID")
		}
	}
	return validateEvals(e.Evals)
}

func (e *AllocTransition) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateAllocsDesiredTransitions(index, e.Transitions); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *AllocTransition) WrittenEvals() []*structs.Evaluation { return e.Evals }
