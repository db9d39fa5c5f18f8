package logentry

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// AllocMaxRun sets the max_run_duration of one running allocation
// (structs.Allocation.MaxRunOverride).
type AllocMaxRun struct {
	AllocID  string
	Override structs.MaxRunOverride
}

func (e *AllocMaxRun) MessageType() MessageType { return MsgAllocMaxRunOverride }

func (e *AllocMaxRun) Validate() error {
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

func (e *AllocMaxRun) ApplyTo(s *state.StateStore, index uint64) error {
	return s.SetAllocMaxRunOverride(index, e.AllocID, &e.Override)
}

func (e *AllocMaxRun) WrittenEvals() []*structs.Evaluation { return nil }
