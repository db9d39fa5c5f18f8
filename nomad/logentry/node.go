package logentry

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// NodeRegister registers a node or refreshes its registration, with
// evaluations for the jobs the change affects.
type NodeRegister struct {
	Node  *structs.Node
	Evals []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeRegister) MessageType() MessageType { return MsgNodeRegister }

func (e *NodeRegister) Validate() error {
	if err := ValidateNode(e.Node); err != nil {
		return err
	}
	return validateEvals(e.Evals)
}

func (e *NodeRegister) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.UpsertNode(index, e.Node); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeRegister) WrittenEvals() []*structs.Evaluation { return e.Evals }

func ValidateNode(n *structs.Node) error {
	switch {
	case n == nil:
		return invalidf("node register: no node")
	case n.ID == "":
		return invalidf("node register: node has no ID")
	case n.Name == "":
		return invalidf("node %q: missing node name", n.ID)
	case n.Datacenter == "":
		return invalidf("node %q: missing datacenter", n.ID)
	case n.Status != "" && !knownNodeStatus(n.Status):
		return invalidf("node %q: unknown status %q", n.ID, n.Status)
	case n.SchedulingEligibility != "" && !knownEligibility(n.SchedulingEligibility):
		return invalidf("node %q: unknown scheduling eligibility %q", n.ID, n.SchedulingEligibility)
	}
	return nil
}

func knownNodeStatus(status string) bool {
	switch status {
	case structs.NodeStatusInit, structs.NodeStatusReady, structs.NodeStatusDown:
		return true
	}
	return false
}

func knownEligibility(elig string) bool {
	return elig == structs.NodeSchedulingEligible || elig == structs.NodeSchedulingIneligible
}

// NodeDeregister removes nodes, with evaluations for the jobs that
// lose allocations with them.
type NodeDeregister struct {
	NodeIDs []string
	Evals   []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeDeregister) MessageType() MessageType { return MsgNodeDeregister }

func (e *NodeDeregister) Validate() error {
	if len(e.NodeIDs) == 0 {
		return invalidf("node deregister: no node IDs")
	}
	for _, id := range e.NodeIDs {
		if id == "" {
			return invalidf("node deregister: empty node ID")
		}
	}
	return validateEvals(e.Evals)
}

func (e *NodeDeregister) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.DeleteNode(index, e.NodeIDs); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeDeregister) WrittenEvals() []*structs.Evaluation { return e.Evals }

// NodeUpdateStatus sets a node's status (Unix nanoseconds in
// UpdatedAt), with evaluations for the jobs the change affects.
type NodeUpdateStatus struct {
	NodeID    string
	Status    string
	UpdatedAt int64
	Evals     []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeUpdateStatus) MessageType() MessageType { return MsgNodeUpdateStatus }

func (e *NodeUpdateStatus) Validate() error {
	switch {
	case e.NodeID == "":
		return invalidf("node status update: missing node ID")
	case !knownNodeStatus(e.Status):
		return invalidf("node %q: unknown status %q", e.NodeID, e.Status)
	}
	return validateEvals(e.Evals)
}

func (e *NodeUpdateStatus) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateNodeStatus(index, e.NodeID, e.Status, e.UpdatedAt); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeUpdateStatus) WrittenEvals() []*structs.Evaluation { return e.Evals }

// NodeUpdateEligibility sets whether the scheduler may use a node.
type NodeUpdateEligibility struct {
	NodeID      string
	Eligibility string
	UpdatedAt   int64
	Evals       []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeUpdateEligibility) MessageType() MessageType { return MsgNodeUpdateEligibility }

func (e *NodeUpdateEligibility) Validate() error {
	switch {
	case e.NodeID == "":
		return invalidf("node eligibility update: missing node ID")
	case !knownEligibility(e.Eligibility):
		return invalidf("node %q: unknown scheduling eligibility %q", e.NodeID, e.Eligibility)
	}
	return validateEvals(e.Evals)
}

func (e *NodeUpdateEligibility) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateNodeEligibility(index, e.NodeID, e.Eligibility, e.UpdatedAt); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeUpdateEligibility) WrittenEvals() []*structs.Evaluation { return e.Evals }

// NodeUpdateDrain starts (DrainStrategy set) or ends (nil) a drain.
type NodeUpdateDrain struct {
	NodeID        string
	DrainStrategy *structs.DrainStrategy `json:",omitempty"`
	MarkEligible  bool                   `json:",omitempty"`
	UpdatedAt     int64
	Evals         []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeUpdateDrain) MessageType() MessageType { return MsgNodeUpdateDrain }

func (e *NodeUpdateDrain) Validate() error {
	if e.NodeID == "" {
		return invalidf("node drain update: missing node ID")
	}
	return validateEvals(e.Evals)
}

func (e *NodeUpdateDrain) ApplyTo(s *state.StateStore, index uint64) error {
	err := s.UpdateNodeDrain(index, e.NodeID, e.DrainStrategy, e.MarkEligible, e.UpdatedAt)
	if err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeUpdateDrain) WrittenEvals() []*structs.Evaluation { return e.Evals }
