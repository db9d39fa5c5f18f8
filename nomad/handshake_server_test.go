package nomad

import (
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

func TestServer_NeedsAKeyToJoinOthers(t *testing.T) {
	for name, change := range map[string]func(*Config){
		"bootstrap_expect": func(c *Config) { c.BootstrapExpect = 3 },
		"server_join":      func(c *Config) { c.ServerJoin = []string{"127.0.0.1:1"} },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, "keyless")
			cfg.ClusterKey = nil
			change(cfg)
			_, err := NewServer(cfg)
			must.ErrorContains(t, err, "server.encrypt is required")
		})
	}
	cfg := testConfig(t, "bad-key")
	cfg.ClusterKey = []byte("short")
	_, err := NewServer(cfg)
	must.ErrorContains(t, err, "a key is 16, 24 or 32 bytes")
}

// Servers with different keys never form a cluster: each bootstraps
// nothing, since neither can reach the other as a server.
func TestServer_DifferentKeysFormNoCluster(t *testing.T) {
	a := testConfig(t, "a")
	a.BootstrapExpect = 2
	sa := startServer(t, a)
	b := testConfig(t, "b")
	b.BootstrapExpect = 2
	b.ClusterKey = []byte("another cluster key, of 32 bytes")
	b.ServerJoin = []string{sa.RPCAdvertise()}
	told := countLogs(b, "server refused this server's credentials")
	sb := startServer(t, b)
	refused := countLogs(a, "refused RPC connection")
	waitfor.True(t, "a to refuse several rounds of b's connections", func() bool { return refused.n.Load() >= 3 })
	must.Positive(t, told.n.Load(), must.Sprint("b says why it cannot join"))
	must.Len(t, 1, sa.Members(), must.Sprint("a never hears of b"))
	must.False(t, sa.hasRaftState())
	must.False(t, sb.hasRaftState())
}

func TestRPCMux_ConnectionsPerIPAreCapped(t *testing.T) {
	cfg := testConfig(t, "capped")
	cfg.RPCMaxConnsPerClient = 2
	s := startServer(t, cfg)
	waitForLeader(t, s)

	first, _ := forgedConn(t, s.RPCAdvertise(), nomadrpc.ConnTypeRPC, nomadrpc.RoleAnonymous, nil)
	forgedConn(t, s.RPCAdvertise(), nomadrpc.ConnTypeRPC, nomadrpc.RoleAnonymous, nil)
	third, err := net.Dial("tcp", s.RPCAdvertise())
	must.NoError(t, err)
	defer third.Close()
	readUntilClosed(t, third)

	// Closing one makes room again.
	first.Close()
	waitfor.NoError(t, "room for a connection", func() error {
		conn, err := net.Dial("tcp", s.RPCAdvertise())
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.Write([]byte{nomadrpc.ConnTypeRPC}); err != nil {
			return err
		}
		if err := conn.SetReadDeadline(time.Now().Add(time.Second)); err != nil {
			return err
		}
		buf := make([]byte, len(nomadrpc.HandshakeMagic))
		if _, err := conn.Read(buf); err != nil {
			return fmt.Errorf("no challenge: %w", err)
		}
		if string(buf) != nomadrpc.HandshakeMagic {
			return errors.New("no challenge")
		}
		return nil
	})
}

func TestRPCMux_SilentPeerIsDropped(t *testing.T) {
	cfg := testConfig(t, "impatient")
	cfg.RPCHandshakeTimeout = 200 * time.Millisecond
	s := startServer(t, cfg)
	conn, err := net.Dial("tcp", s.RPCAdvertise())
	must.NoError(t, err)
	defer conn.Close()
	// It says what it carries and then nothing: the handshake times out.
	_, err = conn.Write([]byte{nomadrpc.ConnTypeRPC})
	must.NoError(t, err)
	readUntilClosed(t, conn)
}
