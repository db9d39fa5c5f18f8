package nomad

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// identityFixture is a server with a node and a running allocation of a
// job whose task asks for its identity.
type identityFixture struct {
	s     *Server
	node  *structs.Node
	alloc *structs.Allocation
}

func newIdentityFixture(t *testing.T) *identityFixture {
	t.Helper()
	s := startServer(t, testConfig(t, "identity"))
	waitForLeader(t, s)
	waitForRootKey(t, s)
	node := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(testCtx(t), node)
	must.NoError(t, err)
	job := testJob("ident")
	job.TaskGroups[0].Tasks[0].Identity = &structs.WorkloadIdentity{Env: true, TTL: time.Hour, Audience: []string{"nomad.io", "example.com"}}
	mustRegister(t, s, job)
	stored, err := s.State().JobByID(nil, structs.DefaultNamespace, "ident")
	must.NoError(t, err)
	return &identityFixture{s: s, node: node, alloc: placeTestAlloc(t, s, stored, node.ID)}
}

func (f *identityFixture) sign(t *testing.T) (string, *structs.IdentityClaims) {
	t.Helper()
	resp, err := f.s.SignIdentities(testCtx(t), &IdentitySignRequest{NodeID: f.node.ID, AllocID: f.alloc.ID, Tasks: []string{"task"}})
	must.NoError(t, err)
	must.Len(t, 1, resp.Identities)
	token := resp.Identities[0].JWT
	claims, err := f.s.verifyIdentity(token)
	must.NoError(t, err)
	must.Eq(t, claims.Expiry, resp.Identities[0].Expiry.Unix())
	return token, claims
}

func TestSignIdentities_asTheTaskBlockSays(t *testing.T) {
	f := newIdentityFixture(t)
	_, claims := f.sign(t)
	must.Eq(t, f.alloc.ID, claims.AllocationID)
	must.Eq(t, "ident", claims.JobID)
	must.Eq(t, "task", claims.Task)
	must.Eq(t, []string{"nomad.io", "example.com"}, claims.Audience)
	must.Eq(t, claims.IssuedAt+3600, claims.Expiry)
}

func TestSignIdentities_rotationSignsWithTheNewKeyAndOldTokensStillVerify(t *testing.T) {
	f := newIdentityFixture(t)
	old, _ := f.sign(t)
	oldKey, err := f.s.State().ActiveRootKey(nil)
	must.NoError(t, err)

	rotated, err := f.s.RotateRootKey(testCtx(t), &RootKeyRotateRequest{})
	must.NoError(t, err)
	fresh, _ := f.sign(t)
	must.Eq(t, rotated.Key.KeyID, tokenKeyID(t, fresh))
	must.Eq(t, oldKey.KeyID, tokenKeyID(t, old))

	for _, token := range []string{old, fresh} {
		a, err := f.s.ResolveWorkloadIdentity(testCtx(t), token)
		must.NoError(t, err)
		must.True(t, a.AllowWorkloadAlloc(structs.DefaultNamespace, f.alloc.ID))
	}

	// Once the old key is removed, what it signed no longer verifies.
	_, err = f.s.DeleteRootKey(testCtx(t), &RootKeyDeleteRequest{KeyID: oldKey.KeyID, Force: true})
	must.NoError(t, err)
	_, err = f.s.ResolveWorkloadIdentity(testCtx(t), old)
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.ErrorContains(t, err, "does not hold")
	_, err = f.s.ResolveWorkloadIdentity(testCtx(t), fresh)
	must.NoError(t, err)
}

func TestSignIdentities_refusals(t *testing.T) {
	f := newIdentityFixture(t)
	ctx := testCtx(t)
	_, err := f.s.SignIdentities(ctx, &IdentitySignRequest{NodeID: structs.GenerateUUID(), AllocID: f.alloc.ID, Tasks: []string{"task"}})
	must.ErrorIs(t, err, ErrPermissionDenied)
	_, err = f.s.SignIdentities(ctx, &IdentitySignRequest{NodeID: f.node.ID, AllocID: f.alloc.ID, Tasks: []string{"nope"}})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, `no task "nope"`)
	_, err = f.s.SignIdentities(ctx, &IdentitySignRequest{NodeID: f.node.ID, AllocID: f.alloc.ID})
	must.ErrorIs(t, err, ErrInvalidRequest)
	_, err = f.s.SignIdentities(ctx, &IdentitySignRequest{NodeID: f.node.ID, AllocID: structs.GenerateUUID(), Tasks: []string{"task"}})
	must.ErrorIs(t, err, ErrNotFound)

	// Over RPC the node proves its secret.
	rpc := clientAgentRPC(t)
	addr := f.s.RPCAddr().String()
	var resp IdentitySignResponse
	err = rpc.Call(ctx, addr, "Client.SignIdentities", &IdentitySignRequest{NodeID: f.node.ID, SecretID: structs.GenerateUUID(), AllocID: f.alloc.ID, Tasks: []string{"task"}}, &resp)
	must.ErrorContains(t, err, "wrong secret ID")
	err = rpc.Call(ctx, addr, "Client.SignIdentities", &IdentitySignRequest{NodeID: f.node.ID, SecretID: f.node.SecretID, AllocID: f.alloc.ID, Tasks: []string{"task"}}, &resp)
	must.NoError(t, err)
	must.Len(t, 1, resp.Identities)

	// A terminal allocation's tasks get none, and its tokens are refused.
	token := resp.Identities[0].JWT
	done := f.alloc.Copy()
	done.ClientStatus = structs.AllocClientStatusComplete
	_, err = f.s.Apply(ctx, logentry.MsgAllocClientUpdate, &logentry.AllocClientUpdate{Allocs: []*structs.Allocation{done}})
	must.NoError(t, err)
	_, err = f.s.SignIdentities(ctx, &IdentitySignRequest{NodeID: f.node.ID, AllocID: f.alloc.ID, Tasks: []string{"task"}})
	must.ErrorContains(t, err, "is complete")
	_, err = f.s.ResolveWorkloadIdentity(ctx, token)
	must.ErrorContains(t, err, "no longer runs")
}

// tokenKeyID is the kid of a token's header.
func tokenKeyID(t *testing.T, token string) string {
	t.Helper()
	var kid string
	_, err := structs.VerifyIdentity(token, func(id string) ed25519.PublicKey { kid = id; return nil }, time.Now())
	must.Error(t, err)
	return kid
}
