package nomad

import (
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/membership"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// readUntilClosed reads conn until the server closes it, failing the test
// if that takes longer than leaderWait.
func readUntilClosed(t *testing.T, conn net.Conn) {
	t.Helper()
	must.NoError(t, conn.SetReadDeadline(time.Now().Add(leaderWait)))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("server did not close the connection: %v", err)
	}
}

func TestRPCMux_UnknownConnectionTypeIsClosed(t *testing.T) {
	s := startServer(t, testConfig(t, "mux"))
	conn, err := net.Dial("tcp", s.RPCAdvertise())
	must.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte{0x7f, 'h', 'i'})
	must.NoError(t, err)
	readUntilClosed(t, conn)

	// The server still serves.
	waitForLeader(t, s)
	mustRegister(t, s, testJob("still-serving"))
}

func TestRPCMux_ShutdownClosesConnectionsAndLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := NewServer(testConfig(t, "mux"))
	must.NoError(t, err)
	waitForLeader(t, s)

	// An idle RPC client, an idle raft peer and a connection that never
	// says what it is: shutdown must end all three.
	var conns []net.Conn
	dialer := nomadrpc.NewDialer(nomadrpc.Credentials{Role: nomadrpc.RoleServer, Secret: testClusterKey}, nomadrpc.NewInstanceID())
	for _, kind := range []byte{nomadrpc.ConnTypeRPC, nomadrpc.ConnTypeRaft} {
		conn, err := dialer.Dial(s.RPCAdvertise(), kind, time.Second)
		must.NoError(t, err)
		conns = append(conns, conn)
	}
	silent, err := net.Dial("tcp", s.RPCAdvertise())
	must.NoError(t, err)
	conns = append(conns, silent)
	// Let the server accept them before it shuts down.
	var resp MembersResponse
	pool := serverPool(t)
	err = pool.Call(testCtx(t), s.RPCAdvertise(), "Status.Members", &MembersRequest{
		From: membership.Member{ID: "probe", Name: "probe.global", Region: "global", RPCAddr: "127.0.0.1:1"},
	}, &resp)
	must.NoError(t, err)
	must.Eq(t, s.NodeID(), resp.Self.ID)
	must.True(t, resp.HasState)
	pool.Close()

	must.NoError(t, s.Shutdown())
	for _, conn := range conns {
		readUntilClosed(t, conn)
		conn.Close()
	}
	_, err = net.DialTimeout("tcp", s.RPCAdvertise(), time.Second)
	must.Error(t, err, must.Sprint("the listener must be closed"))

	waitfor.True(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before+2 })
}
