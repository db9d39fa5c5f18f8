package nomad

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// placeTestAlloc writes a running allocation of job on nodeID and returns
// it.
func placeTestAlloc(t *testing.T, s *Server, job *structs.Job, nodeID string) *structs.Allocation {
	t.Helper()
	alloc := testAlloc(job, nodeID)
	_, err := s.Apply(testCtx(t), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	stored, err := s.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	return stored
}

func TestClientEndpoint_GetClientAllocs_BlocksUntilTheNodeChanges(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	node := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(testCtx(t), node)
	must.NoError(t, err)
	job := testJob("watched")

	first, err := s.GetClientAllocs(testCtx(t), node.ID, 0)
	must.NoError(t, err)
	must.MapEmpty(t, first.Allocs)

	// The query blocks until the allocation table changes. A write for
	// another node may wake it (the index is the table's), but only
	// this node's allocations are in the answer.
	type result struct {
		resp *ClientAllocsResponse
		err  error
	}
	results := make(chan result, 1)
	go func() {
		resp, err := s.GetClientAllocs(testCtx(t), node.ID, first.Index)
		results <- result{resp, err}
	}()
	select {
	case r := <-results:
		t.Fatalf("query returned before any write: %+v", r.resp)
	case <-time.After(200 * time.Millisecond):
	}
	placeTestAlloc(t, s, job, "another-node")
	mine := placeTestAlloc(t, s, job, node.ID)
	var r result
	select {
	case r = <-results:
	case <-time.After(leaderWait):
		t.Fatal("query did not return after a write")
	}
	must.NoError(t, r.err)
	must.Greater(t, first.Index, r.resp.Index)
	if len(r.resp.Allocs) == 0 {
		r.resp, r.err = s.GetClientAllocs(testCtx(t), node.ID, r.resp.Index)
		must.NoError(t, r.err)
	}
	must.Eq(t, map[string]uint64{mine.ID: mine.AllocModifyIndex}, r.resp.Allocs)

	// A client update bumps the table's index but not AllocModifyIndex.
	update := &structs.Allocation{ID: mine.ID, ClientStatus: structs.AllocClientStatusComplete}
	_, err = s.UpdateAllocsFromClient(testCtx(t), []*structs.Allocation{update})
	must.NoError(t, err)
	after, err := s.GetClientAllocs(testCtx(t), node.ID, r.resp.Index)
	must.NoError(t, err)
	must.Greater(t, r.resp.Index, after.Index)
	must.Eq(t, mine.AllocModifyIndex, after.Allocs[mine.ID])

	// The wait ends the query with the current answer.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	idle, err := s.GetClientAllocs(ctx, node.ID, after.Index)
	must.NoError(t, err)
	must.Eq(t, after.Index, idle.Index)

	_, err = s.GetClientAllocs(testCtx(t), "", 0)
	must.ErrorIs(t, err, ErrInvalidRequest)
}

func TestClientEndpoint_OverRPC(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	rpc := clientAgentRPC(t)
	addr := s.RPCAddr().String()
	ctx := testCtx(t)

	node := testNode(structs.GenerateUUID())
	var reg NodeUpdateResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.Register", &NodeRegisterRequest{Node: node}, &reg))
	alloc := placeTestAlloc(t, s, testJob("remote"), node.ID)

	var allocs ClientAllocsResponse
	req := &ClientAllocsRequest{NodeID: node.ID, SecretID: node.SecretID, MaxWait: time.Second}
	must.NoError(t, rpc.Call(ctx, addr, "Client.GetClientAllocs", req, &allocs))
	must.Eq(t, map[string]uint64{alloc.ID: alloc.AllocModifyIndex}, allocs.Allocs)

	// A blocking call waits no longer than MaxWait.
	start := time.Now()
	var idle ClientAllocsResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.GetClientAllocs",
		&ClientAllocsRequest{NodeID: node.ID, SecretID: node.SecretID, MinIndex: allocs.Index, MaxWait: 100 * time.Millisecond}, &idle))
	must.Less(t, leaderWait, time.Since(start))
	must.Eq(t, allocs.Index, idle.Index)

	var got AllocsGetResponse
	must.NoError(t, rpc.Call(ctx, addr, "Client.GetAllocs",
		&AllocsGetRequest{AllocIDs: []string{alloc.ID, "gone"}, NodeID: node.ID, SecretID: node.SecretID}, &got))
	must.Len(t, 1, got.Allocs)
	must.Eq(t, alloc.ID, got.Allocs[0].ID)
	must.NotNil(t, got.Allocs[0].Job)
	must.Eq(t, "remote", got.Allocs[0].Job.ID)

	var unknown NodeHeartbeatResponse
	err := rpc.Call(ctx, addr, "Client.Heartbeat", &NodeHeartbeatRequest{NodeID: "nope", SecretID: "x"}, &unknown)
	must.ErrorIs(t, err, ErrNotFound)
	must.False(t, IsServerUnavailable(err))
}

func TestIsServerUnavailable(t *testing.T) {
	rpc := NewRPCClient(RPCClientConfig{DialTimeout: 200 * time.Millisecond})
	t.Cleanup(rpc.Close)
	var reply IndexResponse
	err := rpc.Call(context.Background(), "127.0.0.1:1", "Status.Ping", &struct{}{}, &reply)
	must.Error(t, err)
	must.True(t, IsServerUnavailable(err))
	must.True(t, IsServerUnavailable(&nomadrpc.RemoteError{Message: "no leader", Sentinel: ErrNoLeader}))
	must.True(t, IsServerUnavailable(&nomadrpc.RemoteError{Message: "cannot reach the leader", Sentinel: ErrLeaderUnreachable}),
		must.Sprint("another server may reach the leader"))
	must.False(t, IsServerUnavailable(&nomadrpc.RemoteError{Message: "may still apply", Sentinel: ErrMayStillApply}))
	must.False(t, IsServerUnavailable(&nomadrpc.RemoteError{Message: "bad", Sentinel: ErrInvalidRequest}))
	must.False(t, IsServerUnavailable(nil))
	must.True(t, IsServerUnavailable(errors.New("connection reset")))
}
