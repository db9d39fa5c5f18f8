package nomad

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// AllocMaxRunEntry sets the max_run_duration of one running allocation
// (structs.Allocation.MaxRunOverride).
type AllocMaxRunEntry struct {
	AllocID  string
	Override structs.MaxRunOverride
}

func (e *AllocMaxRunEntry) messageType() MessageType { return MsgAllocMaxRunOverride }

func (e *AllocMaxRunEntry) validate() error {
	switch {
	case e.AllocID == "":
		return invalidf("alloc max_run_duration: no allocation ID")
	case e.Override.Budget <= 0:
		return invalidf("alloc max_run_duration: budget must be greater than zero, got %s", e.Override.Budget)
	case e.Override.Replaces < 0:
		return invalidf("alloc max_run_duration: the group's budget must not be negative, got %s", e.Override.Replaces)
	}
	return nil
}

func (e *AllocMaxRunEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.SetAllocMaxRunOverride(index, e.AllocID, &e.Override)
}

func (e *AllocMaxRunEntry) evals() []*structs.Evaluation { return nil }
