package nomad

import (
	"context"
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ListNamespaces returns the namespaces whose name starts with q.Prefix,
// sorted by name: those q.ACL grants anything in.
func (s *Server) ListNamespaces(ctx context.Context, q QueryOptions) ([]*structs.Namespace, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Namespace, uint64, error) {
		namespaces, err := st.NamespacesByNamePrefix(ws, q.Prefix)
		namespaces = slices.DeleteFunc(namespaces, func(ns *structs.Namespace) bool { return !q.ACL.AllowNamespace(ns.Name) })
		return resultAt(st, namespaces, err, state.TableNamespaces)
	})
}

// GetNamespace returns the named namespace, nil when there is none.
func (s *Server) GetNamespace(ctx context.Context, name string, q QueryOptions) (*structs.Namespace, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.Namespace, uint64, error) {
		ns, err := st.NamespaceByName(ws, name)
		return objectAt(st, ns, err, func(ns *structs.Namespace) uint64 { return ns.ModifyIndex }, state.TableNamespaces)
	})
}
