package nomad

import (
	"bufio"
	"bytes"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// dialRole opens an RPC connection to srv proving role.
func dialRole(t *testing.T, srv *Server, role nomadrpc.ConnRole) net.Conn {
	t.Helper()
	creds := nomadrpc.Credentials{Role: role}
	switch role {
	case nomadrpc.RoleClient:
		creds.Secret = nomadrpc.RegistrationSecret(testClusterKey)
	case nomadrpc.RoleServer:
		creds.Secret = testClusterKey
	}
	conn, err := nomadrpc.NewDialer(creds, nomadrpc.NewInstanceID()).Dial(srv.RPCAddr().String(), nomadrpc.ConnTypeRPC, 5*time.Second)
	must.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// mustStillAnswer checks that srv answers a request of ordinary size from
// a peer of role.
func mustStillAnswer(t *testing.T, srv *Server, role nomadrpc.ConnRole) {
	t.Helper()
	conn := dialRole(t, srv, role)
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err := conn.Write([]byte(`{"method":"Client.Register","params":[{}],"id":7}` + "\n"))
	must.NoError(t, err)
	line, err := bufio.NewReader(conn).ReadString('\n')
	must.NoError(t, err)
	must.True(t, strings.HasPrefix(line, `{"id":7`), must.Sprint(line))
}

// sendHugeRequest sends one request of up to limit bytes, the way an
// attacker pads one: a node ID without end. It returns how much was sent
// before the server closed the connection (limit: it never did).
func sendHugeRequest(conn net.Conn, limit int) int {
	_ = conn.SetWriteDeadline(time.Now().Add(time.Minute))
	if _, err := conn.Write([]byte(`{"method":"Client.Register","params":[{"Node":{"ID":"`)); err != nil {
		return 0
	}
	chunk := bytes.Repeat([]byte("a"), 256<<10)
	sent := 0
	for sent < limit {
		if _, err := conn.Write(chunk); err != nil {
			return sent
		}
		sent += len(chunk)
	}
	return sent
}

// One JSON-RPC request of any size was buffered whole, from any peer that
// could connect, an anonymous one included: a request over its role's cap
// now closes the connection once the cap is read.
func TestRPC_oversizedRequestIsCutByRole(t *testing.T) {
	cfg := testConfig(t, "big")
	cfg.Logger = hclog.NewNullLogger()
	srv := startServer(t, cfg)
	waitForLeader(t, srv)
	for role, limit := range map[nomadrpc.ConnRole]int{nomadrpc.RoleAnonymous: nomadrpc.MaxAnonymousRequestBytes, nomadrpc.RoleClient: nomadrpc.MaxClientRequestBytes} {
		t.Run(role.String(), func(t *testing.T) {
			// What the sockets' buffers hold is sent before the
			// server's refusal reaches the sender.
			attempt := limit + 32<<20
			sent := sendHugeRequest(dialRole(t, srv, role), attempt)
			t.Logf("the server closed the connection after %d KiB were sent", sent>>10)
			must.Less(t, attempt, sent, must.Sprint("the connection was closed"))
			must.Greater(t, limit/2, sent, must.Sprint("not before the cap"))

			mustStillAnswer(t, srv, role)
		})
	}
}

// heapPeak samples the heap in use until stop is closed and returns the
// most it saw.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// Issue 21: twelve connections that proved nothing, each sending a request
// of 64 MiB in parallel, took a fresh server from 21 MiB to 1.8 GiB. Now
// each is cut at its role's cap, and what all of a role's connections hold
// at once is bounded by the role's budget, so the server's heap stays
// within a bound of its own whatever they send: many anonymous connections
// and many of client agents (the registration secret is shared by every
// client machine), at once.
func TestRPC_floodOfLargeRequestsKeepsTheHeapBounded(t *testing.T) {
	cfg := testConfig(t, "flooded")
	cfg.Logger = hclog.NewNullLogger()
	cfg.RPCMaxConnsPerClient = 0
	srv := startServer(t, cfg)
	waitForLeader(t, srv)

	const perRole = 24
	conns := make(map[nomadrpc.ConnRole][]net.Conn)
	for _, role := range []nomadrpc.ConnRole{nomadrpc.RoleAnonymous, nomadrpc.RoleClient} {
		for range perRole {
			conns[role] = append(conns[role], dialRole(t, srv, role))
		}
	}
	before := heapAlloc()
	stop := make(chan struct{})
	peak := heapPeak(stop)
	var wg sync.WaitGroup
	var sent atomic.Int64
	for _, list := range conns {
		for _, conn := range list {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sent.Add(int64(sendHugeRequest(conn, 64<<20)))
				conn.Close()
			}()
		}
	}
	wg.Wait()
	close(stop)
	growth := int64(<-peak) - int64(before)
	t.Logf("%d connections sent %d MiB in all; the heap in use grew by at most %d MiB", 2*perRole, sent.Load()>>20, growth>>20)
	// The budgets are 4 MiB (anonymous) and 32 MiB (client agents);
	// decoding holds a few times what it reads. Before, this was
	// gigabytes.
	must.Less(t, int64(256<<20), growth)

	mustStillAnswer(t, srv, nomadrpc.RoleAnonymous)
	mustStillAnswer(t, srv, nomadrpc.RoleClient)
}
