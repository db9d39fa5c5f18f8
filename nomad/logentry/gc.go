package logentry

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// MaxGCBatch bounds the objects one GCDelete entry names, so that one
// entry stays small; a larger pass is written as several.
const MaxGCBatch = 4096

// GCDelete removes what one pass of garbage collection decided; the state
// store checks each object again where the entry lands
// (state.DeleteGarbage).
type GCDelete struct {
	Garbage *state.Garbage
}

func (e *GCDelete) MessageType() MessageType { return MsgGCDelete }

func (e *GCDelete) Validate() error {
	switch {
	case e.Garbage.Empty():
		return invalidf("gc delete: nothing to delete")
	case e.Garbage.Count() > MaxGCBatch:
		return invalidf("gc delete: %d objects, more than the %d one entry may name", e.Garbage.Count(), MaxGCBatch)
	}
	for _, j := range e.Garbage.Jobs {
		if j.Namespace == "" || j.ID == "" {
			return invalidf("gc delete: a job needs its namespace and ID")
		}
	}
	return nil
}

func (e *GCDelete) ApplyTo(s *state.StateStore, index uint64) error {
	return s.DeleteGarbage(index, e.Garbage)
}

func (e *GCDelete) WrittenEvals() []*structs.Evaluation { return nil }
