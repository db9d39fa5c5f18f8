package logentry

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// PeriodicLaunch records a periodic job's latest launch.
type PeriodicLaunch struct {
	Launch *state.PeriodicLaunch
}

func (e *PeriodicLaunch) MessageType() MessageType { return MsgPeriodicLaunch }

func (e *PeriodicLaunch) Validate() error {
	switch {
	case e.Launch == nil:
		return invalidf("periodic launch: no launch")
	case e.Launch.ID == "" || e.Launch.Namespace == "":
		return invalidf("periodic launch: namespace and job ID are required")
	case e.Launch.Launch.IsZero():
		return invalidf("periodic launch of job %q: no launch time", e.Launch.ID)
	}
	return nil
}

func (e *PeriodicLaunch) ApplyTo(s *state.StateStore, index uint64) error {
	return s.UpsertPeriodicLaunch(index, e.Launch)
}

func (e *PeriodicLaunch) WrittenEvals() []*structs.Evaluation { return nil }
