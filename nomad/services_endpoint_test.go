package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func testRegistration(alloc *structs.Allocation, name string, port int) *structs.ServiceRegistration {
	return &structs.ServiceRegistration{
		ID: "_nomad-task-" + alloc.ID + "-" + name, ServiceName: name, Namespace: alloc.Namespace,
		NodeID: alloc.NodeID, Datacenter: "dc1", JobID: alloc.JobID, AllocID: alloc.ID,
		Address: "127.0.0.1", Port: port,
	}
}

// A client registers its allocations' services over RPC with its node's
// secret, only for its own allocations; the registrations go when the
// node stops heartbeating and is marked down.
func TestServices_clientRegistersAndNodeDownRemoves(t *testing.T) {
	cfg := testConfig(t, "s1")
	cfg.MinHeartbeatTTL = 500 * time.Millisecond
	cfg.HeartbeatGrace = 500 * time.Millisecond
	s := startServer(t, cfg)
	waitForLeader(t, s)
	ctx := testCtx(t)
	rpc := clientAgentRPC(t)
	addr := s.RPCAddr().String()

	node, other := testNode(structs.GenerateUUID()), testNode(structs.GenerateUUID())
	for _, n := range []*structs.Node{node, other} {
		var reg NodeUpdateResponse
		must.NoError(t, rpc.Call(ctx, addr, "Client.Register", &NodeRegisterRequest{Node: n}, &reg))
	}
	heartbeatLoop(t, s, other.ID, 100*time.Millisecond)
	silence := heartbeatLoop(t, s, node.ID, 100*time.Millisecond)
	alloc := placeTestAlloc(t, s, testJob("svc"), node.ID)
	otherAlloc := placeTestAlloc(t, s, testJob("other"), other.ID)

	register := func(n *structs.Node, secret string, regs ...*structs.ServiceRegistration) error {
		var idx IndexResponse
		return rpc.Call(ctx, addr, "Client.RegisterServices",
			&ServiceRegistrationUpsertRequest{Services: regs, NodeID: n.ID, SecretID: secret}, &idx)
	}
	must.ErrorIs(t, register(node, "wrong", testRegistration(alloc, "web", 8080)), ErrPermissionDenied)
	// A node cannot register services of another node's allocation,
	// whichever node the registration names.
	stolen := testRegistration(otherAlloc, "web", 1)
	must.ErrorIs(t, register(node, node.SecretID, stolen), ErrPermissionDenied)
	stolen.NodeID = node.ID
	must.ErrorIs(t, register(node, node.SecretID, stolen), ErrPermissionDenied)

	must.NoError(t, register(node, node.SecretID, testRegistration(alloc, "web", 8080)))
	must.NoError(t, register(other, other.SecretID, testRegistration(otherAlloc, "db", 5432)))

	q := QueryOptions{Namespace: AllNamespaces, ACL: nil}
	got, _, err := s.GetServiceRegistrations(ctx, "web", QueryOptions{Namespace: structs.DefaultNamespace, ACL: acl.Management()})
	must.NoError(t, err)
	must.Len(t, 1, got)
	must.Eq(t, 8080, got[0].Port)
	hidden, _, err := s.ListServiceRegistrations(ctx, q)
	must.NoError(t, err)
	must.SliceEmpty(t, hidden, must.Sprint("a caller without an ACL saw registrations"))

	silence()
	waitfor.True(t, "the node's registrations to go with it", func() bool {
		regs, err := s.State().ServiceRegistrationsByNode(nil, node.ID)
		must.NoError(t, err)
		return len(regs) == 0
	})
	regs, err := s.State().ServiceRegistrationsByNode(nil, other.ID)
	must.NoError(t, err)
	must.Len(t, 1, regs, must.Sprint("the live node's registration went too"))
}

// A client deregisters its allocation's services; an operator deletes
// one registration by ID.
func TestServices_deregisterAndDelete(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	rpc := clientAgentRPC(t)
	addr := s.RPCAddr().String()
	node := testNode(structs.GenerateUUID())
	var reg NodeUpdateResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.Register", &NodeRegisterRequest{Node: node}, &reg))
	a, b := placeTestAlloc(t, s, testJob("a"), node.ID), placeTestAlloc(t, s, testJob("b"), node.ID)
	var idx IndexResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.RegisterServices", &ServiceRegistrationUpsertRequest{
		Services: []*structs.ServiceRegistration{testRegistration(a, "web", 1), testRegistration(b, "web", 2)},
		NodeID:   node.ID, SecretID: node.SecretID,
	}, &idx))

	must.NoError(t, rpc.Call(ctx, addr, "Client.DeregisterServices",
		&ServiceRegistrationDeleteByAllocRequest{AllocIDs: []string{a.ID}, NodeID: node.ID, SecretID: node.SecretID}, &idx))
	regs, err := s.State().ServiceRegistrationsByNode(nil, node.ID)
	must.NoError(t, err)
	must.Len(t, 1, regs)
	must.Eq(t, b.ID, regs[0].AllocID)

	_, err = s.DeleteServiceRegistration(ctx, &ServiceRegistrationDeleteRequest{Namespace: "other", ID: regs[0].ID})
	must.ErrorIs(t, err, ErrNotFound)
	_, err = s.DeleteServiceRegistration(ctx, &ServiceRegistrationDeleteRequest{Namespace: b.Namespace, ID: regs[0].ID})
	must.NoError(t, err)
	regs, err = s.State().ServiceRegistrationsByNode(nil, node.ID)
	must.NoError(t, err)
	must.SliceEmpty(t, regs)
}

// A caller that is not a server reaches the service writes only through
// Client.*, with a node's secret, for that node's allocations.
func TestForgedRPC_ServiceWritesChangeNothing(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	node, alloc := nodeWithRunningAlloc(t, s)
	other := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(testCtx(t), other)
	must.NoError(t, err)
	c := forgedRPC(t, s)

	regs := []*structs.ServiceRegistration{testRegistration(alloc, "web", 1)}
	var idx IndexResponse
	mustBeDenied(t, c, "Service.Upsert", &ServiceRegistrationUpsertRequest{Services: regs, NodeID: node.ID}, &idx)
	mustBeDenied(t, c, "Service.DeleteByAlloc", &ServiceRegistrationDeleteByAllocRequest{AllocIDs: []string{alloc.ID}, NodeID: node.ID}, &idx)
	mustBeDenied(t, c, "Client.RegisterServices", &ServiceRegistrationUpsertRequest{Services: regs, NodeID: node.ID, SecretID: "guess"}, &idx)
	mustBeDenied(t, c, "Client.DeregisterServices", &ServiceRegistrationDeleteByAllocRequest{AllocIDs: []string{alloc.ID}, NodeID: other.ID, SecretID: other.SecretID}, &idx)
	regs[0].NodeID = other.ID
	mustBeDenied(t, c, "Client.RegisterServices", &ServiceRegistrationUpsertRequest{Services: regs, NodeID: other.ID, SecretID: other.SecretID}, &idx)

	got, err := s.State().ServiceRegistrations(nil)
	must.NoError(t, err)
	must.SliceEmpty(t, got)
}

// A client's registration sent to a follower reaches the leader.
func TestServices_registerThroughAFollower(t *testing.T) {
	c := startCluster(t)
	leader := c.waitForOneLeader(c.servers)
	f := follower(c.servers)
	must.NotNil(t, f)
	rpc := clientAgentRPC(t)
	addr := f.RPCAddr().String()
	ctx := testCtx(t)

	node := testNode(structs.GenerateUUID())
	var reg NodeUpdateResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.Register", &NodeRegisterRequest{Node: node}, &reg))
	alloc := placeTestAlloc(t, leader, testJob("through-follower"), node.ID)
	waitfor.True(t, "the allocation on the follower", func() bool {
		a, err := f.State().AllocByID(nil, alloc.ID)
		return err == nil && a != nil
	})
	var idx IndexResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.RegisterServices", &ServiceRegistrationUpsertRequest{
		Services: []*structs.ServiceRegistration{testRegistration(alloc, "web", 1)}, NodeID: node.ID, SecretID: node.SecretID,
	}, &idx))
	regs, err := leader.State().ServiceRegistrationsByNode(nil, node.ID)
	must.NoError(t, err)
	must.Len(t, 1, regs)
}
