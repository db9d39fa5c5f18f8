package nomad

import (
	"context"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/structs"
)

// aclConfig is unscheduledConfig with ACLs on.
func aclConfig(t *testing.T, name string) *Config {
	cfg := unscheduledConfig(t, name)
	cfg.ACLEnabled = true
	return cfg
}

// aclServer starts a server with ACLs on, bootstraps it and returns it
// with the management token.
func aclServer(t *testing.T) (*Server, *structs.ACLToken) {
	t.Helper()
	s := startServer(t, aclConfig(t, "acl"))
	waitForLeader(t, s)
	resp, err := s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.NoError(t, err)
	return s, resp.Token
}

// clientToken writes a policy of the given rules and a client token that
// names it, and returns the token.
func clientToken(t testing.TB, s *Server, name, rules string) *structs.ACLToken {
	t.Helper()
	ctx := testCtx(t)
	_, err := s.UpsertACLPolicies(ctx, &ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{{Name: name, Rules: rules}}})
	must.NoError(t, err)
	resp, err := s.UpsertACLTokens(ctx, &ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{{Name: name, Policies: []string{name}}}})
	must.NoError(t, err)
	must.Len(t, 1, resp.Tokens)
	return resp.Tokens[0]
}

// callerCtx is the context the HTTP API hands a write in with for a request
// that carries secret: the caller's identity as s resolves it, and the
// secret for a write s forwards to the leader.
func callerCtx(t *testing.T, s *Server, secret string) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), leaderWait)
	t.Cleanup(cancel)
	a, _, err := s.ResolveToken(ctx, secret)
	must.NoError(t, err)
	return auth.WithCaller(WithAuthToken(ctx, secret), a)
}

// writeTargets registers a node and a job "existing" with an allocation
// on the node: what the user writes of the permission tests act on.
func writeTargets(t *testing.T, s *Server) (*structs.Node, *structs.Allocation) {
	t.Helper()
	node := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(testCtx(t), node)
	must.NoError(t, err)
	mustRegister(t, s, testJob("existing"))
	job, err := s.State().JobByID(nil, structs.DefaultNamespace, "existing")
	must.NoError(t, err)
	return node, placeTestAlloc(t, s, job, node.ID)
}
