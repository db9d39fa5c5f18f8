package nomad

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ReadVariable returns the variable at req.Path, decrypted, or a nil Data
// when there is none; with MinQueryIndex it blocks until the variable
// changes past it, as every read does (read.go). The caller ctx carries
// needs read on the path: a token's variables rules, or a task's
// workload identity on its own job's paths.
func (s *Server) ReadVariable(ctx context.Context, req *structs.VariablesReadRequest) (*structs.VariablesReadResponse, error) {
	ns := defaultNamespace(req.Namespace)
	if err := structs.ValidateVariablePath(req.Path); err != nil {
		return nil, invalidf("%v", err)
	}
	var caller *acl.ACL
	err := s.authorize(ctx, func(a *acl.ACL) error {
		caller = a
		return auth.Variable(a, ns, req.Path, acl.VariablesRead)
	})
	if err != nil {
		return nil, err
	}
	q := variablesQuery(ns, req.QueryOptions)
	q.ACL = caller
	v, meta, err := read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.VariableDecrypted, uint64, error) {
		sealed, err := st.VariableByPath(ws, ns, req.Path)
		if err != nil || sealed == nil {
			_, index, err := objectAt(st, sealed, err, nil, state.TableVariables)
			return nil, index, err
		}
		v, err := openVariable(st, sealed)
		return v, sealed.ModifyIndex, err
	})
	if err != nil {
		return nil, err
	}
	return &structs.VariablesReadResponse{Data: v, QueryMeta: queryMeta(meta)}, nil
}

// Read serves ReadVariable over RPC, to the holder of args.AuthToken.
func (e *variablesReadRPC) Read(args *structs.VariablesReadRequest, reply *structs.VariablesReadResponse) error {
	return e.srv.serveUserRead(args.AuthToken, args.QueryOptions, func(ctx context.Context) error {
		return fill(reply)(e.srv.ReadVariable(ctx, args))
	})
}
