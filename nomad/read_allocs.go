package nomad

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ListAllocs returns the allocations of q.Namespace whose ID starts with
// q.Prefix, sorted by ID, of the namespaces where q.ACL may read jobs.
func (s *Server) ListAllocs(ctx context.Context, q QueryOptions) ([]*structs.Allocation, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Allocation, uint64, error) {
		allocs, err := st.AllocsByIDPrefix(ws, q.Namespace, q.Prefix)
		allocs = visible(q, allocs, allocNamespace, acl.CapReadJob)
		return resultAt(st, allocs, err, state.TableAllocs)
	})
}

// GetAlloc returns the allocation with the given ID, with its job; nil
// when there is none. An allocation ID is unique across namespaces.
func (s *Server) GetAlloc(ctx context.Context, id string, q QueryOptions) (*structs.Allocation, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.Allocation, uint64, error) {
		alloc, err := st.AllocByID(ws, id)
		return objectAt(st, alloc, err, allocModifyIndex, state.TableAllocs)
	})
}

func allocModifyIndex(a *structs.Allocation) uint64 { return a.ModifyIndex }

func allocNamespace(a *structs.Allocation) string { return a.Namespace }
