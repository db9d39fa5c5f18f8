package agent

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
)

// The RPC limits reach the server: a silent connection is dropped after
// rpc_handshake_timeout, and no more than rpc_max_conns_per_client are
// held from one address.
func TestLimits_RPCReachTheServer(t *testing.T) {
	a := testAgent(t, func(cfg *config.Config) {
		cfg.Limits.RPCHandshakeTimeout = 300 * time.Millisecond
		cfg.Limits.RPCMaxConnsPerClient = 1
	})
	addr := a.Server().RPCAdvertise()
	held, err := net.Dial("tcp", addr)
	must.NoError(t, err)
	defer held.Close()
	start := time.Now()
	must.NoError(t, held.SetReadDeadline(time.Now().Add(30*time.Second)))
	_, err = io.Copy(io.Discard, held)
	must.NoError(t, err, must.Sprint("the server closes a silent connection"))
	must.Less(t, 20*time.Second, time.Since(start))

	// The server has taken a connection once it sends a challenge (the
	// silent one above may take a moment to leave the count); a second
	// one from this address is then closed at once.
	var first net.Conn
	waitfor.NoError(t, "a connection taken", func() error {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		if _, err := conn.Write([]byte{0x02}); err != nil {
			conn.Close()
			return err
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(conn, make([]byte, 4)); err != nil {
			conn.Close()
			return err
		}
		first = conn
		return nil
	})
	defer first.Close()
	second, err := net.Dial("tcp", addr)
	must.NoError(t, err)
	defer second.Close()
	must.NoError(t, second.SetReadDeadline(time.Now().Add(30*time.Second)))
	n, err := second.Read(make([]byte, 1))
	must.Eq(t, 0, n)
	must.ErrorIs(t, err, io.EOF)
}
