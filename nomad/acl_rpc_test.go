package nomad

import (
	"errors"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/structs"
)

// rawCall sends one RPC to s over a connection of its own that proves the
// cluster key, as another server does: past the RPC port's check of who
// is a member, the ACL token the request carries is what decides.
func rawCall(t *testing.T, s *Server, method string, args, reply any) error {
	t.Helper()
	return serverPool(t).Call(testCtx(t), s.RPCAdvertise(), method, args, reply)
}

// anonymousCall sends one RPC over a connection that proves nothing.
func anonymousCall(t *testing.T, s *Server, method string, args, reply any) error {
	t.Helper()
	c := NewRPCClient(RPCClientConfig{DialTimeout: time.Second})
	t.Cleanup(c.Close)
	return c.Call(testCtx(t), s.RPCAdvertise(), method, args, reply)
}

// TestUserRPCs_checkTheTokenTheyCarry sends every write a user can make
// straight to the leader's RPC port, without going through an HTTP API:
// without a token, or with one that lacks what the write needs, it is
// refused and changes nothing; with the right token it goes through.
func TestUserRPCs_checkTheTokenTheyCarry(t *testing.T) {
	s, mgmt := aclServer(t)
	node, alloc := writeTargets(t, s)
	reader := clientToken(t, s, "reader", `namespace "*" { policy = "read" }
node { policy = "read" }`)
	periodic := testJob("cron")
	periodic.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "0 0 1 1 *", SpecType: "cron"}
	mustRegister(t, s, periodic)

	calls := []struct {
		method string
		args   func(secret string) any
		reply  any
	}{
		{"Job.Register", func(secret string) any {
			return &JobRegisterRequest{AuthRequest: AuthRequest{secret}, Job: testJob("forged")}
		}, &JobRegisterResponse{}},
		{"Job.Deregister", func(secret string) any {
			return &JobDeregisterRequest{AuthRequest: AuthRequest{secret}, Namespace: "default", JobID: "existing", Purge: true}
		}, &JobDeregisterResponse{}},
		{"Alloc.Stop", func(secret string) any {
			return &AllocStopRequest{AuthRequest: AuthRequest{secret}, AllocID: alloc.ID}
		}, &AllocStopResponse{}},
		{"Alloc.SetMaxRunDuration", func(secret string) any {
			return &AllocMaxRunRequest{AuthRequest: AuthRequest{secret}, AllocID: alloc.ID, Budget: time.Second}
		}, &AllocMaxRunResponse{}},
		{"Job.Revert", func(secret string) any {
			return &JobRevertRequest{AuthRequest: AuthRequest{secret}, Namespace: "default", JobID: "existing", JobVersion: 0}
		}, &JobRegisterResponse{}},
		{"Node.UpdateEligibility", func(secret string) any {
			return &NodeUpdateEligibilityRequest{AuthRequest: AuthRequest{secret}, NodeID: node.ID, Eligibility: structs.NodeSchedulingIneligible}
		}, &NodeUpdateResponse{}},
		{"Node.UpdateDrain", func(secret string) any {
			return &NodeUpdateDrainRequest{AuthRequest: AuthRequest{secret}, NodeID: node.ID, DrainStrategy: &structs.DrainStrategy{}}
		}, &NodeUpdateResponse{}},
		{"Node.Deregister", func(secret string) any {
			return &NodeDeregisterRequest{AuthRequest: AuthRequest{secret}, NodeIDs: []string{node.ID}}
		}, &NodeUpdateResponse{}},
		{"Periodic.Force", func(secret string) any {
			return &PeriodicForceRequest{AuthRequest: AuthRequest{secret}, Namespace: "default", JobID: "cron"}
		}, &PeriodicForceResponse{}},
		{"ACL.UpsertPolicies", func(secret string) any {
			return &ACLPolicyUpsertRequest{AuthRequest: AuthRequest{secret}, Policies: []*structs.ACLPolicy{{Name: "forged", Rules: `node { policy = "write" }`}}}
		}, &IndexResponse{}},
		{"ACL.DeletePolicies", func(secret string) any {
			return &ACLPolicyDeleteRequest{AuthRequest: AuthRequest{secret}, Names: []string{"reader"}}
		}, &IndexResponse{}},
		{"ACL.UpsertTokens", func(secret string) any {
			return &ACLTokenUpsertRequest{AuthRequest: AuthRequest{secret}, Tokens: []*structs.ACLToken{{Type: structs.ACLTokenTypeManagement}}}
		}, &ACLTokenUpsertResponse{}},
		{"ACL.DeleteTokens", func(secret string) any {
			return &ACLTokenDeleteRequest{AuthRequest: AuthRequest{secret}, AccessorIDs: []string{reader.AccessorID}}
		}, &IndexResponse{}},
		{"Namespace.Upsert", func(secret string) any {
			return &NamespaceUpsertRequest{AuthRequest: AuthRequest{secret}, Namespaces: []*structs.Namespace{{Name: "forged"}}}
		}, &IndexResponse{}},
		{"Namespace.Delete", func(secret string) any {
			return &NamespaceDeleteRequest{AuthRequest: AuthRequest{secret}, Names: []string{"default"}}
		}, &IndexResponse{}},
		{"System.GarbageCollect", func(secret string) any {
			return &SystemRequest{AuthRequest: AuthRequest{secret}}
		}, &SystemGCResponse{}},
		{"System.ReconcileSummaries", func(secret string) any {
			return &SystemRequest{AuthRequest: AuthRequest{secret}}
		}, &IndexResponse{}},
	}
	for _, c := range calls {
		for _, secret := range []string{"", reader.SecretID, structs.GenerateUUID()} {
			err := rawCall(t, s, c.method, c.args(secret), c.reply)
			must.Error(t, err, must.Sprintf("%s with secret %q went through", c.method, secret))
			must.True(t, isPermissionError(err), must.Sprintf("%s: %v", c.method, err))
		}
		// Not even the management token gets through a connection that
		// is not a member's.
		err := anonymousCall(t, s, c.method, c.args(mgmt.SecretID), c.reply)
		must.True(t, isPermissionError(err), must.Sprintf("%s over an anonymous connection: %v", c.method, err))
	}
	unchanged(t, s, node.ID, alloc.ID)

	// The management token opens each of them (the last two are refused
	// for what they ask, not for who asks).
	for _, c := range calls {
		err := rawCall(t, s, c.method, c.args(mgmt.SecretID), c.reply)
		if err != nil {
			must.False(t, isPermissionError(err), must.Sprintf("%s: %v", c.method, err))
		}
	}
}

// unchanged checks that none of the refused writes of
// TestUserRPCs_checkTheTokenTheyCarry left a trace.
func unchanged(t *testing.T, s *Server, nodeID, allocID string) {
	t.Helper()
	st := s.State()
	forged, err := st.JobByID(nil, "default", "forged")
	must.NoError(t, err)
	must.Nil(t, forged)
	existing, err := st.JobByID(nil, "default", "existing")
	must.NoError(t, err)
	must.NotNil(t, existing)
	children, err := st.JobChildren(nil, "default", "cron")
	must.NoError(t, err)
	must.Len(t, 0, children)
	alloc, err := st.AllocByID(nil, allocID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocDesiredStatusRun, alloc.DesiredStatus)
	node, err := st.NodeByID(nil, nodeID)
	must.NoError(t, err)
	must.NotNil(t, node)
	must.Eq(t, structs.NodeSchedulingEligible, node.SchedulingEligibility)
	must.Nil(t, node.DrainStrategy)
	for _, name := range []string{"forged", "reader"} {
		p, err := st.ACLPolicyByName(nil, name)
		must.NoError(t, err)
		must.Eq(t, name == "reader", p != nil)
	}
	tokens, err := st.ACLTokensByAccessorPrefix(nil, "")
	must.NoError(t, err)
	must.Len(t, 2, tokens)
	ns, err := st.NamespaceByName(nil, "forged")
	must.NoError(t, err)
	must.Nil(t, ns)
}

func isPermissionError(err error) bool {
	return errors.Is(err, ErrPermissionDenied) || errors.Is(err, ErrTokenNotFound)
}

// TestJobRegister_rawExecNeedsItsCapability: a token that may submit jobs
// may not submit one that runs raw_exec without submit-raw-exec.
func TestJobRegister_rawExecNeedsItsCapability(t *testing.T) {
	s, _ := aclServer(t)
	writer := clientToken(t, s, "writer", `namespace "default" { policy = "write" }`)
	trusted := clientToken(t, s, "trusted", `namespace "default" {
  policy       = "write"
  capabilities = ["submit-raw-exec"]
}`)
	job := testJob("raw") // its task uses raw_exec
	must.SliceContains(t, job.Drivers(), "raw_exec")

	err := rawCall(t, s, "Job.Register", &JobRegisterRequest{AuthRequest: AuthRequest{writer.SecretID}, Job: job}, &JobRegisterResponse{})
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.ErrorContains(t, err, "submit-raw-exec")

	mock := testJob("mock")
	mock.TaskGroups[0].Tasks[0].Driver = "mock_driver"
	must.NoError(t, rawCall(t, s, "Job.Register", &JobRegisterRequest{AuthRequest: AuthRequest{writer.SecretID}, Job: mock}, &JobRegisterResponse{}))
	must.NoError(t, rawCall(t, s, "Job.Register", &JobRegisterRequest{AuthRequest: AuthRequest{trusted.SecretID}, Job: job}, &JobRegisterResponse{}))

	a, _, err := s.ResolveToken(testCtx(t), writer.SecretID)
	must.NoError(t, err)
	must.ErrorIs(t, auth.JobRegister(a, job), ErrPermissionDenied)
	must.NoError(t, auth.JobRegister(acl.Management(), job))
}

// TestCluster_ACLWritesThroughAFollower: a follower forwards a user's
// write with the user's token, and the leader checks it.
func TestCluster_ACLWritesThroughAFollower(t *testing.T) {
	c := startCluster(t, func(cfg *Config) { cfg.ACLEnabled = true; cfg.NumSchedulers = new(0) })
	leader := c.waitForOneLeader(c.servers)
	f := follower(c.servers)
	_, err := f.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.NoError(t, err)
	writer := clientToken(t, leader, "writer", `namespace "default" {
  policy       = "write"
  capabilities = ["submit-raw-exec"]
}`)

	_, err = f.RegisterJob(callerCtx(t, f, ""), &JobRegisterRequest{Job: testJob("anonymous")})
	must.ErrorIs(t, err, ErrPermissionDenied)

	_, err = f.RegisterJob(callerCtx(t, f, writer.SecretID), &JobRegisterRequest{Job: testJob("through-follower")})
	must.NoError(t, err)
	c.waitForJob(c.servers, "through-follower")
}

// TestCluster_newTokenWorksAtOnceOnAFollower: a token the leader has just
// written works on a follower right away, which catches up before it says
// the token does not exist.
func TestCluster_newTokenWorksAtOnceOnAFollower(t *testing.T) {
	c := startCluster(t, func(cfg *Config) { cfg.ACLEnabled = true; cfg.NumSchedulers = new(0) })
	leader := c.waitForOneLeader(c.servers)
	f := follower(c.servers)
	boot, err := leader.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.NoError(t, err)
	a, _, err := f.ResolveToken(testCtx(t), boot.Token.SecretID)
	must.NoError(t, err)
	must.True(t, a.IsManagement())
	clientToken(t, leader, "reader", `node { policy = "read" }`)
	for i := range 20 {
		resp, err := leader.UpsertACLTokens(testCtx(t), &ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{{Policies: []string{"reader"}}}})
		must.NoError(t, err)
		a, tok, err := f.ResolveToken(testCtx(t), resp.Tokens[0].SecretID)
		must.NoError(t, err, must.Sprintf("token %d", i))
		must.Eq(t, resp.Tokens[0].AccessorID, tok.AccessorID)
		must.True(t, a.AllowNodeRead())
	}
	_, _, err = f.ResolveToken(testCtx(t), structs.GenerateUUID())
	must.ErrorIs(t, err, ErrTokenNotFound)
}
