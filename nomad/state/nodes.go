package state

import (
	"errors"
	"fmt"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
)

// UpsertNode registers a node, taking ownership of it. A fresh
// registration keeps the Status it is given (initializing if none) and is
// eligible unless it says otherwise. A re-registration keeps CreateIndex
// and what only operators change: the drain and the scheduling
// eligibility, so a node cannot undrain itself by registering again.
func (s *StateStore) UpsertNode(index uint64, node *structs.Node) error {
	switch {
	case node == nil:
		return errors.New("upsert node: node is nil")
	case node.ID == "":
		return errors.New("upsert node: node has no ID")
	}
	return s.write(func(txn *memdb.Txn) error {
		raw, err := txn.First(TableNodes, indexID, node.ID)
		if err != nil {
			return fmt.Errorf("read node %q: %w", node.ID, err)
		}
		node.ModifyIndex = index
		if raw == nil {
			node.CreateIndex = index
			if node.Status == "" {
				node.Status = structs.NodeStatusInit
			}
			if node.SchedulingEligibility == "" {
				node.SchedulingEligibility = structs.NodeSchedulingEligible
			}
		} else {
			existing := raw.(*structs.Node)
			node.CreateIndex = existing.CreateIndex
			node.Drain = existing.Drain
			node.DrainStrategy = existing.DrainStrategy
			node.SchedulingEligibility = existing.SchedulingEligibility
			if node.Events == nil {
				node.Events = existing.Events
			}
		}
		if err := txn.Insert(TableNodes, node); err != nil {
			return fmt.Errorf("upsert node %q: %w", node.ID, err)
		}
		return bumpIndex(txn, index, TableNodes)
	})
}

// DeleteNode removes nodes. IDs that are not stored are skipped.
func (s *StateStore) DeleteNode(index uint64, nodeIDs []string) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, id := range nodeIDs {
			if _, err := txn.DeleteAll(TableNodes, indexID, id); err != nil {
				return fmt.Errorf("delete node %q: %w", id, err)
			}
		}
		if err := deleteServicesBy(txn, index, indexNode, nodeIDs); err != nil {
			return err
		}
		return bumpIndex(txn, index, TableNodes)
	})
}

// UpdateNodeStatus sets a node's status, as heartbeats and their absence
// decide it, and when it was set (Unix nanoseconds).
func (s *StateStore) UpdateNodeStatus(index uint64, nodeID, status string, updatedAt int64) error {
	switch status {
	case structs.NodeStatusInit, structs.NodeStatusReady, structs.NodeStatusDown:
	default:
		return fmt.Errorf("update status of node %q: unknown status %q", nodeID, status)
	}
	return s.write(func(txn *memdb.Txn) error {
		err := updateNodeIn(txn, index, nodeID, "status", func(node *structs.Node) error {
			node.Status = status
			node.StatusUpdatedAt = updatedAt
			return nil
		})
		if err != nil || status != structs.NodeStatusDown {
			return err
		}
		// A node that is down serves none of the services it registered.
		return deleteServicesBy(txn, index, indexNode, []string{nodeID})
	})
}

// UpdateNodeEligibility sets whether the scheduler may place allocations
// on a node. A draining node cannot be made eligible.
func (s *StateStore) UpdateNodeEligibility(index uint64, nodeID, eligibility string, updatedAt int64) error {
	switch eligibility {
	case structs.NodeSchedulingEligible, structs.NodeSchedulingIneligible:
	default:
		return fmt.Errorf("update eligibility of node %q: unknown eligibility %q", nodeID, eligibility)
	}
	return s.updateNode(index, nodeID, "eligibility", func(node *structs.Node) error {
		if eligibility == structs.NodeSchedulingEligible && node.DrainStrategy != nil {
			return errors.New("a draining node cannot be made eligible")
		}
		node.SchedulingEligibility = eligibility
		node.StatusUpdatedAt = updatedAt
		return nil
	})
}

// UpdateNodeDrain starts a drain (drain set) or ends one (drain nil).
// A draining node is ineligible; ending a drain makes the node eligible
// again only if markEligible is set.
func (s *StateStore) UpdateNodeDrain(index uint64, nodeID string, drain *structs.DrainStrategy, markEligible bool, updatedAt int64) error {
	return s.updateNode(index, nodeID, "drain", func(node *structs.Node) error {
		node.Drain = drain != nil
		node.DrainStrategy = drain
		switch {
		case drain != nil:
			node.SchedulingEligibility = structs.NodeSchedulingIneligible
		case markEligible:
			node.SchedulingEligibility = structs.NodeSchedulingEligible
		}
		node.StatusUpdatedAt = updatedAt
		return nil
	})
}

// updateNode replaces a stored node by a copy that change modified.
func (s *StateStore) updateNode(index uint64, nodeID, what string, change func(*structs.Node) error) error {
	return s.write(func(txn *memdb.Txn) error {
		return updateNodeIn(txn, index, nodeID, what, change)
	})
}

// updateNodeIn is updateNode within txn.
func updateNodeIn(txn *memdb.Txn, index uint64, nodeID, what string, change func(*structs.Node) error) error {
	raw, err := txn.First(TableNodes, indexID, nodeID)
	if err != nil {
		return fmt.Errorf("read node %q: %w", nodeID, err)
	}
	if raw == nil {
		return fmt.Errorf("update %s of node %q: %w", what, nodeID, ErrNotFound)
	}
	updated := *raw.(*structs.Node)
	if err := change(&updated); err != nil {
		return fmt.Errorf("update %s of node %q: %w", what, nodeID, err)
	}
	updated.ModifyIndex = index
	if err := txn.Insert(TableNodes, &updated); err != nil {
		return fmt.Errorf("update %s of node %q: %w", what, nodeID, err)
	}
	return bumpIndex(txn, index, TableNodes)
}

// NodeByID returns the node, or nil if there is none.
func (r *reader) NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error) {
	raw, err := r.first(ws, TableNodes, indexID, id)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "node %q", id)
	}
	return raw.(*structs.Node), nil
}

// NodesByIDPrefix returns the nodes whose ID starts with prefix, sorted by
// ID.
func (r *reader) NodesByIDPrefix(ws memdb.WatchSet, prefix string) ([]*structs.Node, error) {
	nodes, err := list[*structs.Node](r, ws, TableNodes, indexID+"_prefix", prefix)
	return nodes, wrapRead(err, "nodes with prefix %q", prefix)
}

// Nodes returns every node, sorted by ID.
func (r *reader) Nodes(ws memdb.WatchSet) ([]*structs.Node, error) {
	nodes, err := list[*structs.Node](r, ws, TableNodes, indexID)
	return nodes, wrapRead(err, "nodes")
}
