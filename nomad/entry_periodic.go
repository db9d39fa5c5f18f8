package nomad

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// PeriodicLaunchEntry records a periodic job's latest launch.
type PeriodicLaunchEntry struct {
	Launch *state.PeriodicLaunch
}

func (e *PeriodicLaunchEntry) messageType() MessageType { return MsgPeriodicLaunch }

func (e *PeriodicLaunchEntry) validate() error {
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

func (e *PeriodicLaunchEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.UpsertPeriodicLaunch(index, e.Launch)
}

func (e *PeriodicLaunchEntry) evals() []*structs.Evaluation { return nil }
