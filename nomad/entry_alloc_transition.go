package nomad

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// AllocTransitionEntry sets how the server wants allocations moved, with
// the evaluations that act on it.
type AllocTransitionEntry struct {
	Transitions map[string]structs.DesiredTransition
	Evals       []*structs.Evaluation `json:",omitempty"`
}

func (e *AllocTransitionEntry) messageType() MessageType { return MsgAllocDesiredTransition }

func (e *AllocTransitionEntry) validate() error {
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

func (e *AllocTransitionEntry) applyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateAllocsDesiredTransitions(index, e.Transitions); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *AllocTransitionEntry) evals() []*structs.Evaluation { return e.Evals }
