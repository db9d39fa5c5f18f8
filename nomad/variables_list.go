package nomad

import (
	"context"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ListVariables returns the metadata, never the items, of the variables
// whose path starts with req.Prefix in req.Namespace (AllNamespaces: in
// every namespace), those the caller may list, sorted by namespace and
// path, a page at a time when req.PerPage is set. It blocks as every
// read does. The caller needs list on some path of the namespace.
func (s *Server) ListVariables(ctx context.Context, req *structs.VariablesListRequest) (*structs.VariablesListResponse, error) {
	ns := defaultNamespace(req.Namespace)
	if req.PerPage < 0 {
		return nil, invalidf("per_page %d is negative", req.PerPage)
	}
	var caller *acl.ACL
	err := s.authorize(ctx, func(a *acl.ACL) error {
		caller = a
		return auth.VariableList(a, ns)
	})
	if err != nil {
		return nil, err
	}
	q := variablesQuery(ns, req.QueryOptions)
	q.ACL = caller
	all, meta, err := read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.VariableMetadata, uint64, error) {
		vars, err := st.VariablesByPrefix(ws, ns, req.Prefix)
		out := make([]*structs.VariableMetadata, 0, len(vars))
		for _, v := range vars {
			if caller.AllowVariableOperation(v.Namespace, v.Path, acl.VariablesList) {
				m := v.Metadata()
				out = append(out, &m)
			}
		}
		return resultAt(st, out, err, state.TableVariables)
	})
	if err != nil {
		return nil, err
	}
	page, next := variablesPage(all, ns == AllNamespaces, req.NextToken, int(req.PerPage))
	return &structs.VariablesListResponse{Data: page, NextToken: next, QueryMeta: queryMeta(meta)}, nil
}

// variablesPage cuts the page that starts at token (the token of its
// first variable; "" for the first page) and holds at most perPage
// variables (0: all), and returns the token of the next page.
func variablesPage(vars []*structs.VariableMetadata, acrossNamespaces bool, token string, perPage int) ([]*structs.VariableMetadata, string) {
	start := 0
	if token != "" {
		ns, path := "", token
		if acrossNamespaces {
			ns, path, _ = strings.Cut(token, ".")
		}
		for start < len(vars) && before(vars[start], acrossNamespaces, ns, path) {
			start++
		}
	}
	vars = vars[start:]
	if perPage <= 0 || len(vars) <= perPage {
		return vars, ""
	}
	return vars[:perPage], variableToken(vars[perPage], acrossNamespaces)
}

// before reports whether v comes before the variable at path in ns, in
// the store's order (by namespace, then path).
func before(v *structs.VariableMetadata, acrossNamespaces bool, ns, path string) bool {
	if acrossNamespaces && v.Namespace != ns {
		return v.Namespace < ns
	}
	return v.Path < path
}

// variableToken names a variable in a list's order: its path, or, in a
// list across namespaces, its namespace, a dot and its path (neither a
// namespace nor a path has a dot).
func variableToken(v *structs.VariableMetadata, acrossNamespaces bool) string {
	if acrossNamespaces {
		return v.Namespace + "." + v.Path
	}
	return v.Path
}

// List serves ListVariables over RPC, to the holder of args.AuthToken.
func (e *variablesReadRPC) List(args *structs.VariablesListRequest, reply *structs.VariablesListResponse) error {
	return e.srv.serveUserRead(args.AuthToken, args.QueryOptions, func(ctx context.Context) error {
		return fill(reply)(e.srv.ListVariables(ctx, args))
	})
}
