package nomad

import (
	"context"
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ListACLPolicies returns the policies whose name starts with q.Prefix,
// sorted by name: every one for a management token, else those the
// caller's token names (the anonymous policy for a caller without one).
func (s *Server) ListACLPolicies(ctx context.Context, q QueryOptions) ([]*structs.ACLPolicy, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.ACLPolicy, uint64, error) {
		policies, err := st.ACLPoliciesByNamePrefix(ws, q.Prefix)
		policies = slices.DeleteFunc(policies, func(p *structs.ACLPolicy) bool { return !PolicyVisible(q, p.Name) })
		return atLeastOne(resultAt(st, policies, err, state.TableACLPolicies))
	})
}

// atLeastOne floors the index of an ACL list at 1, as Nomad's ACL
// endpoints do (its client's tests expect it): a list of a table nothing
// was written to yet is at index 1, on which a blocking query blocks.
func atLeastOne[T any](result T, index uint64, err error) (T, uint64, error) {
	return result, max(index, 1), err
}

// PolicyVisible reports whether the caller may read the named policy: a
// management token reads every policy, another token those it names, and
// the anonymous caller the anonymous policy.
func PolicyVisible(q QueryOptions, name string) bool {
	switch {
	case q.ACL.IsManagement():
		return true
	case q.Token == nil:
		return name == structs.AnonymousPolicyName
	}
	return slices.Contains(q.Token.Policies, name)
}

// GetACLPolicy returns the named policy, nil when there is none.
func (s *Server) GetACLPolicy(ctx context.Context, name string, q QueryOptions) (*structs.ACLPolicy, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.ACLPolicy, uint64, error) {
		p, err := st.ACLPolicyByName(ws, name)
		return objectAt(st, p, err, func(p *structs.ACLPolicy) uint64 { return p.ModifyIndex }, state.TableACLPolicies)
	})
}

// ListACLTokens returns the tokens whose accessor ID starts with
// q.Prefix, sorted by accessor ID.
func (s *Server) ListACLTokens(ctx context.Context, q QueryOptions) ([]*structs.ACLToken, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.ACLToken, uint64, error) {
		tokens, err := st.ACLTokensByAccessorPrefix(ws, q.Prefix)
		if !q.ACL.IsManagement() {
			tokens = nil
		}
		return atLeastOne(resultAt(st, tokens, err, state.TableACLTokens))
	})
}

// GetACLToken returns the token with the given accessor ID, nil when
// there is none.
func (s *Server) GetACLToken(ctx context.Context, accessorID string, q QueryOptions) (*structs.ACLToken, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.ACLToken, uint64, error) {
		t, err := st.ACLTokenByAccessorID(ws, accessorID)
		return objectAt(st, t, err, func(t *structs.ACLToken) uint64 { return t.ModifyIndex }, state.TableACLTokens)
	})
}
