package nomad

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ListNodes returns the nodes whose ID starts with q.Prefix, sorted by ID.
// Nodes belong to no namespace.
func (s *Server) ListNodes(ctx context.Context, q QueryOptions) ([]*structs.Node, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Node, uint64, error) {
		nodes, err := st.NodesByIDPrefix(ws, q.Prefix)
		return resultAt(st, nodes, err, state.TableNodes)
	})
}

// GetNode returns the node with the given ID, nil when there is none.
func (s *Server) GetNode(ctx context.Context, id string, q QueryOptions) (*structs.Node, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.Node, uint64, error) {
		node, err := st.NodeByID(ws, id)
		return objectAt(st, node, err, nodeModifyIndex, state.TableNodes)
	})
}

func nodeModifyIndex(n *structs.Node) uint64 { return n.ModifyIndex }

// NodeAllocations returns the allocations placed on the node with the given
// ID, with their jobs: those of the namespaces where q.ACL may read jobs.
func (s *Server) NodeAllocations(ctx context.Context, nodeID string, q QueryOptions) ([]*structs.Allocation, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Allocation, uint64, error) {
		allocs, err := st.AllocsByNode(ws, nodeID)
		allocs = visible(q, allocs, allocNamespace, acl.CapReadJob)
		return resultAt(st, allocs, err, state.TableAllocs)
	})
}
