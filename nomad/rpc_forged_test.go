package nomad

import (
	"io"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/membership"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// The tests here send what a process that merely reaches the RPC port
// could send: each forged call from issue 12, over a raw TCP connection,
// must be refused with a permission error and change nothing.

// forgedConn opens a raw connection of kind to addr and answers the
// server's challenge claiming role, proving it with secret (nil: a proof
// of zeros, what a forger without the secret has). It returns the
// connection (in the clear: a forger that proved a role has no use for
// it) and the server's verdict byte; the connection is closed when the
// test ends.
func forgedConn(t *testing.T, addr string, kind byte, role nomadrpc.ConnRole, secret []byte) (net.Conn, byte) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	must.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	must.NoError(t, conn.SetDeadline(time.Now().Add(leaderWait)))
	_, err = conn.Write([]byte{kind})
	must.NoError(t, err)
	hello := make([]byte, nomadrpc.HelloSize)
	_, err = io.ReadFull(conn, hello)
	must.NoError(t, err)
	must.Eq(t, nomadrpc.HandshakeMagic, string(hello[:len(nomadrpc.HandshakeMagic)]))
	tr := nomadrpc.Transcript{Kind: kind, DialerRole: role, Dialer: nomadrpc.NewInstanceID()}
	copy(tr.Acceptor[:], hello[len(nomadrpc.HandshakeMagic):])
	copy(tr.Challenge[:], hello[len(nomadrpc.HandshakeMagic)+nomadrpc.InstanceIDSize:])
	msg := append([]byte{byte(role)}, tr.Dialer[:]...)
	msg = append(msg, tr.Nonce[:]...)
	proof := make([]byte, nomadrpc.ProofSize)
	if secret != nil {
		derived, err := nomadrpc.DeriveSession(secret, &tr)
		must.NoError(t, err)
		proof = derived.DialerProof
	}
	_, err = conn.Write(append(msg, proof...))
	must.NoError(t, err)
	var verdict [1]byte
	_, err = io.ReadFull(conn, verdict[:])
	must.NoError(t, err)
	must.NoError(t, conn.SetDeadline(time.Time{}))
	return conn, verdict[0]
}

// forgedRPC is an RPC client over a raw connection that proved nothing.
func forgedRPC(t *testing.T, s *Server) *rpc.Client {
	t.Helper()
	conn, verdict := forgedConn(t, s.RPCAdvertise(), nomadrpc.ConnTypeRPC, nomadrpc.RoleAnonymous, nil)
	must.Eq(t, nomadrpc.VerdictOK, verdict, must.Sprint("an anonymous RPC connection is let in, to the Client endpoint"))
	return jsonrpc.NewClient(conn)
}

// mustBeDenied calls method over c and checks that the server refused it
// with a permission error.
func mustBeDenied(t *testing.T, c *rpc.Client, method string, args, reply any) {
	t.Helper()
	err := nomadrpc.DecodeError(c.Call(method, args, reply))
	must.ErrorIs(t, err, ErrPermissionDenied, must.Sprintf("%s", method))
	must.ErrorContains(t, err, "permission denied")
}

// nodeWithRunningAlloc registers a node, as its client would, and places
// a running allocation of a new job on it.
func nodeWithRunningAlloc(t *testing.T, s *Server) (*structs.Node, *structs.Allocation) {
	t.Helper()
	node := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(testCtx(t), node)
	must.NoError(t, err)
	job := testJob("victim-" + node.ID[:8])
	mustRegister(t, s, job)
	return node, placeTestAlloc(t, s, job, node.ID)
}

func TestForgedRPC_StatusJoinAddsNoVoter(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	before := s.Peers()
	c := forgedRPC(t, s)

	var join JoinResponse
	mustBeDenied(t, c, "Status.Join", &JoinRequest{ID: "rogue", RPCAddr: "127.0.0.1:1"}, &join)
	var members MembersResponse
	mustBeDenied(t, c, "Status.Members", &MembersRequest{
		From: membership.Member{ID: "rogue", Name: "rogue.global", Region: "global", RPCAddr: "127.0.0.1:1"},
	}, &members)

	// Claiming to be a server without the key gets nowhere either.
	_, verdict := forgedConn(t, s.RPCAdvertise(), nomadrpc.ConnTypeRPC, nomadrpc.RoleServer, []byte("not the cluster key, 32 bytes.."))
	must.Eq(t, nomadrpc.VerdictBadSecret, verdict)

	must.Eq(t, before, s.Peers(), must.Sprint("no voter was added"))
	for _, m := range s.Members() {
		must.NotEq(t, "rogue", m.ID, must.Sprint("no member was recorded"))
	}
	waitForLeader(t, s)
	must.True(t, s.IsLeader(), must.Sprint("the single server keeps its quorum"))
}

// forgedStream is raft's stream layer for a forger: it announces a raft
// connection and then speaks raft at once, having no key to prove.
type forgedStream struct{ net.Listener }

func (f forgedStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout("tcp", string(addr), timeout)
	if err != nil {
		return nil, err
	}
	_, err = conn.Write([]byte{nomadrpc.ConnTypeRaft})
	return conn, err
}

func TestForgedRPC_RaftApplyChangesNothing(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	job := testJob("kept")
	mustRegister(t, s, job)
	purge, err := logentry.Encode(logentry.MsgJobDeregister, &logentry.JobDeregister{Namespace: job.Namespace, JobID: job.ID, Purge: true})
	must.NoError(t, err)

	// Through the RPC endpoint that forwards log entries...
	c := forgedRPC(t, s)
	var idx IndexResponse
	mustBeDenied(t, c, "Raft.Apply", &RaftApplyRequest{Type: logentry.MsgJobDeregister, Entry: purge[1:]}, &idx)

	// ...and as raft itself: a connection that proves no key is refused
	// before raft reads a byte of it.
	_, verdict := forgedConn(t, s.RPCAdvertise(), nomadrpc.ConnTypeRaft, nomadrpc.RoleAnonymous, nil)
	must.Eq(t, nomadrpc.VerdictNotServer, verdict)
	_, verdict = forgedConn(t, s.RPCAdvertise(), nomadrpc.ConnTypeRaft, nomadrpc.RoleClient, nomadrpc.RegistrationSecret(testClusterKey))
	must.Eq(t, nomadrpc.VerdictNotServer, verdict, must.Sprint("the registration secret is no server's"))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	trans := raft.NewNetworkTransport(forgedStream{ln}, 1, time.Second, io.Discard)
	t.Cleanup(func() { trans.Close() })
	term := s.raft.CurrentTerm()
	last := s.raft.LastIndex()
	lastTerm, err := strconv.ParseUint(s.raft.Stats()["last_log_term"], 10, 64)
	must.NoError(t, err)
	var resp raft.AppendEntriesResponse
	err = trans.AppendEntries("rogue", raft.ServerAddress(s.RPCAdvertise()), &raft.AppendEntriesRequest{
		RPCHeader:         raft.RPCHeader{ID: []byte("rogue"), Addr: []byte(ln.Addr().String())},
		Term:              term + 1,
		PrevLogEntry:      last,
		PrevLogTerm:       lastTerm,
		Entries:           []*raft.Log{{Index: last + 1, Term: term + 1, Type: raft.LogCommand, Data: purge}},
		LeaderCommitIndex: last + 1,
	}, &resp)
	must.Error(t, err)

	stored, err := s.State().JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.NotNil(t, stored, must.Sprint("the job was not purged"))
	must.Eq(t, term, s.raft.CurrentTerm(), must.Sprint("the forger's term did not depose the leader"))
	must.True(t, s.IsLeader())
}

func TestForgedRPC_NodeUpdateStatusChangesNothing(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	node, alloc := nodeWithRunningAlloc(t, s)
	c := forgedRPC(t, s)

	var resp NodeUpdateResponse
	mustBeDenied(t, c, "Node.UpdateStatus", &NodeUpdateStatusRequest{NodeID: node.ID, Status: structs.NodeStatusDown}, &resp)
	mustBeDenied(t, c, "Node.Deregister", &NodeDeregisterRequest{NodeIDs: []string{node.ID}}, &resp)
	mustBeDenied(t, c, "Node.UpdateDrain", &NodeUpdateDrainRequest{NodeID: node.ID, DrainStrategy: &structs.DrainStrategy{}}, &resp)
	var hb NodeHeartbeatResponse
	mustBeDenied(t, c, "Client.Heartbeat", &NodeHeartbeatRequest{NodeID: node.ID, SecretID: structs.GenerateUUID()}, &hb)
	mustBeDenied(t, c, "Client.Heartbeat", &NodeHeartbeatRequest{NodeID: node.ID}, &hb)

	stored, err := s.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Eq(t, structs.NodeStatusReady, stored.Status)
	must.Nil(t, stored.DrainStrategy)
	a, err := s.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocClientStatusRunning, a.ClientStatus, must.Sprint("the allocation was not made lost"))
	evals, err := s.State().Evals(nil)
	must.NoError(t, err)
	for _, e := range evals {
		must.NotEq(t, node.ID, e.NodeID, must.Sprint("no evaluation for the node's change, so no replacement"))
	}

	// The node itself, with its secret, heartbeats.
	must.NoError(t, c.Call("Client.Heartbeat", &NodeHeartbeatRequest{NodeID: node.ID, SecretID: node.SecretID}, &hb))
	must.Positive(t, hb.HeartbeatTTL)
}

func TestForgedRPC_AllocUpdateFromClientChangesNothing(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	node, alloc := nodeWithRunningAlloc(t, s)
	other := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(testCtx(t), other)
	must.NoError(t, err)
	c := forgedRPC(t, s)

	complete := []*structs.Allocation{{ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete}}
	var idx IndexResponse
	mustBeDenied(t, c, "Alloc.UpdateFromClient", &AllocClientUpdateRequest{Allocs: complete}, &idx)
	mustBeDenied(t, c, "Client.UpdateAllocs", &AllocClientUpdateRequest{Allocs: complete, NodeID: node.ID, SecretID: "guess"}, &idx)
	// A node that proves itself reports on its own allocations only.
	mustBeDenied(t, c, "Client.UpdateAllocs", &AllocClientUpdateRequest{Allocs: complete, NodeID: other.ID, SecretID: other.SecretID}, &idx)
	// Nor does it read another node's allocations, and their jobs.
	var got AllocsGetResponse
	mustBeDenied(t, c, "Client.GetAllocs", &AllocsGetRequest{AllocIDs: []string{alloc.ID}, NodeID: other.ID, SecretID: other.SecretID}, &got)
	var list ClientAllocsResponse
	mustBeDenied(t, c, "Client.GetClientAllocs", &ClientAllocsRequest{NodeID: node.ID, SecretID: other.SecretID}, &list)

	a, err := s.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocClientStatusRunning, a.ClientStatus, must.Sprint("the allocation was not marked complete"))
	must.Eq(t, alloc.ModifyIndex, a.ModifyIndex)

	// Its own node, with its secret, does report.
	must.NoError(t, c.Call("Client.UpdateAllocs", &AllocClientUpdateRequest{Allocs: complete, NodeID: node.ID, SecretID: node.SecretID}, &idx))
	a, err = s.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocClientStatusComplete, a.ClientStatus)
}

func TestForgedRPC_NodeRegisterNeedsTheSecrets(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	c := forgedRPC(t, s)

	rogue := testNode(structs.GenerateUUID())
	var resp NodeUpdateResponse
	mustBeDenied(t, c, "Client.Register", &NodeRegisterRequest{Node: rogue, NewNodeAllowed: true}, &resp)
	mustBeDenied(t, c, "Node.Register", &NodeRegisterRequest{Node: rogue, NewNodeAllowed: true}, &resp)
	stored, err := s.State().NodeByID(nil, rogue.ID)
	must.NoError(t, err)
	must.Nil(t, stored, must.Sprint("no rogue node was added"))

	// A client agent that proves the registration secret registers a new
	// node; the same node ID is then its alone.
	agent := clientAgentRPC(t)
	node := testNode(structs.GenerateUUID())
	node.HTTPAddr = "10.0.0.7:4646"
	must.NoError(t, agent.Call(testCtx(t), s.RPCAdvertise(), "Client.Register", &NodeRegisterRequest{Node: node}, &resp))

	hijack := node.Copy()
	hijack.SecretID = structs.GenerateUUID()
	hijack.HTTPAddr = "127.0.0.1:6666"
	err = agent.Call(testCtx(t), s.RPCAdvertise(), "Client.Register", &NodeRegisterRequest{Node: hijack}, &resp)
	must.ErrorIs(t, err, ErrPermissionDenied)
	mustBeDenied(t, c, "Client.Register", &NodeRegisterRequest{Node: hijack}, &resp)
	stored, err = s.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Eq(t, "10.0.0.7:4646", stored.HTTPAddr, must.Sprint("requests are not forwarded to the rogue's address"))
	must.Eq(t, node.SecretID, stored.SecretID)

	// The node itself registers again over an anonymous connection: its
	// secret ID is all it needs.
	again := node.Copy()
	again.HTTPAddr = "10.0.0.8:4646"
	must.NoError(t, c.Call("Client.Register", &NodeRegisterRequest{Node: again}, &resp))
	stored, err = s.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Eq(t, "10.0.0.8:4646", stored.HTTPAddr)

	// A registration without a secret ID is refused outright.
	noSecret := testNode(structs.GenerateUUID())
	noSecret.SecretID = ""
	err = agent.Call(testCtx(t), s.RPCAdvertise(), "Client.Register", &NodeRegisterRequest{Node: noSecret}, &resp)
	must.ErrorIs(t, err, ErrInvalidRequest)
}
