package nomad

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// A client agent may be configured with any server: its writes sent to a
// follower must reach the leader, not bounce with "not the leader" as a
// server-to-server forward would.
func TestClientEndpoint_WritesThroughAFollower(t *testing.T) {
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
	waitfor.True(t, "node on the leader", func() bool {
		n, err := leader.State().NodeByID(nil, node.ID)
		return err == nil && n != nil
	})

	var hb NodeHeartbeatResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.Heartbeat", &NodeHeartbeatRequest{NodeID: node.ID, SecretID: node.SecretID}, &hb))
	must.Positive(t, hb.HeartbeatTTL)

	alloc := placeTestAlloc(t, leader, testJob("through-follower"), node.ID)
	update := &structs.Allocation{ID: alloc.ID, ClientStatus: structs.AllocClientStatusRunning}
	var idx IndexResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.UpdateAllocs", &AllocClientUpdateRequest{Allocs: []*structs.Allocation{update}, NodeID: node.ID, SecretID: node.SecretID}, &idx))
	waitfor.True(t, "client status on the leader", func() bool {
		a, err := leader.State().AllocByID(nil, alloc.ID)
		return err == nil && a != nil && a.ClientStatus == structs.AllocClientStatusRunning
	})

	// The server-to-server endpoint keeps refusing to forward twice.
	err := serverPool(t).Call(ctx, addr, "Node.Register", &NodeRegisterRequest{Node: testNode(structs.GenerateUUID()), NewNodeAllowed: true}, &reg)
	must.ErrorIs(t, err, nomadrpc.ErrNotLeader)
}
