package nomad

import (
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// NodeRegisterEntry registers a node or refreshes its registration, with
// evaluations for the jobs the change affects.
type NodeRegisterEntry struct {
	Node  *structs.Node
	Evals []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeRegisterEntry) messageType() MessageType { return MsgNodeRegister }

func (e *NodeRegisterEntry) validate() error {
	if err := validateNode(e.Node); err != nil {
		return err
	}
	return validateEvals(e.Evals)
}

func (e *NodeRegisterEntry) applyTo(s *state.StateStore, index uint64) error {
	if err := s.UpsertNode(index, e.Node); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeRegisterEntry) evals() []*structs.Evaluation { return e.Evals }

func validateNode(n *structs.Node) error {
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

// NodeDeregisterEntry removes nodes, with evaluations for the jobs that
// lose allocations with them.
type NodeDeregisterEntry struct {
	NodeIDs []string
	Evals   []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeDeregisterEntry) messageType() MessageType { return MsgNodeDeregister }

func (e *NodeDeregisterEntry) validate() error {
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

func (e *NodeDeregisterEntry) applyTo(s *state.StateStore, index uint64) error {
	if err := s.DeleteNode(index, e.NodeIDs); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeDeregisterEntry) evals() []*structs.Evaluation { return e.Evals }

// NodeUpdateStatusEntry sets a node's status (Unix nanoseconds in
// UpdatedAt), with evaluations for the jobs the change affects.
type NodeUpdateStatusEntry struct {
	NodeID    string
	Status    string
	UpdatedAt int64
	Evals     []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeUpdateStatusEntry) messageType() MessageType { return MsgNodeUpdateStatus }

func (e *NodeUpdateStatusEntry) validate() error {
	switch {
	case e.NodeID == "":
		return invalidf("node status update: missing node ID")
	case !knownNodeStatus(e.Status):
		return invalidf("node %q: unknown status %q", e.NodeID, e.Status)
	}
	return validateEvals(e.Evals)
}

func (e *NodeUpdateStatusEntry) applyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateNodeStatus(index, e.NodeID, e.Status, e.UpdatedAt); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeUpdateStatusEntry) evals() []*structs.Evaluation { return e.Evals }

// NodeUpdateEligibilityEntry sets whether the scheduler may use a node.
type NodeUpdateEligibilityEntry struct {
	NodeID      string
	Eligibility string
	UpdatedAt   int64
	Evals       []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeUpdateEligibilityEntry) messageType() MessageType { return MsgNodeUpdateEligibility }

func (e *NodeUpdateEligibilityEntry) validate() error {
	switch {
	case e.NodeID == "":
		return invalidf("node eligibility update: missing node ID")
	case !knownEligibility(e.Eligibility):
		return invalidf("node %q: unknown scheduling eligibility %q", e.NodeID, e.Eligibility)
	}
	return validateEvals(e.Evals)
}

func (e *NodeUpdateEligibilityEntry) applyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateNodeEligibility(index, e.NodeID, e.Eligibility, e.UpdatedAt); err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeUpdateEligibilityEntry) evals() []*structs.Evaluation { return e.Evals }

// NodeUpdateDrainEntry starts (DrainStrategy set) or ends (nil) a drain.
type NodeUpdateDrainEntry struct {
	NodeID        string
	DrainStrategy *structs.DrainStrategy `json:",omitempty"`
	MarkEligible  bool                   `json:",omitempty"`
	UpdatedAt     int64
	Evals         []*structs.Evaluation `json:",omitempty"`
}

func (e *NodeUpdateDrainEntry) messageType() MessageType { return MsgNodeUpdateDrain }

func (e *NodeUpdateDrainEntry) validate() error {
	if e.NodeID == "" {
		return invalidf("node drain update: missing node ID")
	}
	return validateEvals(e.Evals)
}

func (e *NodeUpdateDrainEntry) applyTo(s *state.StateStore, index uint64) error {
	err := s.UpdateNodeDrain(index, e.NodeID, e.DrainStrategy, e.MarkEligible, e.UpdatedAt)
	if err != nil {
		return err
	}
	return upsertOptionalEvals(s, index, e.Evals)
}

func (e *NodeUpdateDrainEntry) evals() []*structs.Evaluation { return e.Evals }
