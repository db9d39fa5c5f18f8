package nomad

import (
	"bytes"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// holdCap is how much a holding proxy keeps of one connection before it
// stops reading it: past it, what the client sends fills the socket
// buffers, as it does towards a process that stopped reading.
const holdCap = 1 << 20

// holdProxy relays TCP connections to a server, and can hold back what
// the connecting side sends: the bytes wait in the proxy, as they wait in
// the network during a partition or in the kernel of a stopped process,
// until deliver sends them on. What the server sends back is never held.
type holdProxy struct {
	t      testing.TB
	l      net.Listener
	target string

	// mu guards the fields below and orders the writes to the servers.
	mu      sync.Mutex
	release chan struct{} // nil while not holding; closed by deliver
	conns   []*proxiedConn
	// received counts what the proxy read from the clients.
	received int64
	// taps see what the clients of poolThrough write, before it is
	// sealed: the proxy sees only sealed records.
	taps []*tapConn
}

// proxiedConn is one relayed connection.
type proxiedConn struct {
	client, server net.Conn
	held           []byte // what the client sent while the proxy held
}

func startHoldProxy(t testing.TB, target string) *holdProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	p := &holdProxy{t: t, l: l, target: target}
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *holdProxy) addr() string { return p.l.Addr().String() }

func (p *holdProxy) accept() {
	for {
		client, err := p.l.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		// A small receive buffer, as a busy host's, so that a large
		// call fills what lies between the client and a full proxy.
		_ = client.(*net.TCPConn).SetReadBuffer(64 << 10)
		pc := &proxiedConn{client: client, server: server}
		p.mu.Lock()
		p.conns = append(p.conns, pc)
		p.mu.Unlock()
		go p.up(pc)
		go down(server, client)
	}
}

// up passes on what the client sends.
func (p *holdProxy) up(pc *proxiedConn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := pc.client.Read(buf)
		p.mu.Lock()
		p.received += int64(n)
		p.mu.Unlock()
		if n > 0 && !p.pass(pc, append([]byte(nil), buf[:n]...)) {
			return
		}
		if err != nil {
			pc.server.Close()
			return
		}
	}
}

// pass writes chunk to the server, or holds it while the proxy holds,
// blocking (and so no longer reading the client) once holdCap is held.
// It reports whether the server took it.
func (p *holdProxy) pass(pc *proxiedConn, chunk []byte) bool {
	for {
		p.mu.Lock()
		release := p.release
		switch {
		case release == nil:
			_, err := pc.server.Write(chunk)
			p.mu.Unlock()
			return err == nil
		case len(pc.held) < holdCap:
			pc.held = append(pc.held, chunk...)
			p.mu.Unlock()
			return true
		}
		p.mu.Unlock()
		<-release
	}
}

func down(server, client net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := server.Read(buf)
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			client.Close()
			return
		}
	}
}

// hold starts holding what clients send.
func (p *holdProxy) hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.release == nil {
		p.release = make(chan struct{})
	}
}

// waitHolding waits until the proxy holds the call whose bytes contain
// marker (an RPC method's name: a call's first bytes), as a client of
// poolThrough wrote it: every byte that client had sent on the wire when
// it wrote the marker has reached the proxy.
func (p *holdProxy) waitHolding(t testing.TB, marker string) {
	t.Helper()
	waitfor.True(t, "the proxy to hold "+marker, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.release == nil {
			return false
		}
		for _, tap := range p.taps {
			if sent, ok := tap.sentThrough(marker); ok && p.received >= sent {
				return true
			}
		}
		return false
	})
}

// tapConn records what is written to a proven connection, and how many
// bytes had gone on the wire below it after each write.
type tapConn struct {
	net.Conn
	wire *countingConn

	mu      sync.Mutex
	written []byte
	// ends[i] is the end of the i-th write in written, and wireEnds[i]
	// the wire's count once it had been written.
	ends, wireEnds []int64
}

func (c *tapConn) Write(b []byte) (int, error) {
	// Recorded before it is written, as a write that blocks in full
	// buffers (the frozen leader's) may never return: until it does, at
	// least its first byte on the wire counts as having sent it.
	c.mu.Lock()
	k := len(c.ends)
	c.written = append(c.written, b...)
	c.ends = append(c.ends, int64(len(c.written)))
	c.wireEnds = append(c.wireEnds, c.wire.count()+1)
	c.mu.Unlock()
	n, err := c.Conn.Write(b)
	c.mu.Lock()
	c.wireEnds[k] = c.wire.count()
	c.mu.Unlock()
	return n, err
}

// sentThrough is how many bytes were on the wire once marker had been
// written, and whether it was.
func (c *tapConn) sentThrough(marker string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := bytes.Index(c.written, []byte(marker))
	if i < 0 {
		return 0, false
	}
	for k, end := range c.ends {
		if end > int64(i) {
			return c.wireEnds[k], true
		}
	}
	return 0, false
}

// countingConn counts the bytes written to it.
type countingConn struct {
	net.Conn
	mu sync.Mutex
	n  int64
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.mu.Lock()
	c.n += int64(n)
	c.mu.Unlock()
	return n, err
}

func (c *countingConn) count() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// deliver sends on what is held, and everything from now on.
func (p *holdProxy) deliver() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.release == nil {
		return
	}
	for _, pc := range p.conns {
		_, _ = pc.server.Write(pc.held)
		pc.held = nil
	}
	close(p.release)
	p.release = nil
}

func (p *holdProxy) close() {
	p.l.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.release != nil {
		close(p.release)
		p.release = nil
	}
	for _, pc := range p.conns {
		pc.client.Close()
		pc.server.Close()
	}
}

// poolThrough makes s reach addr over a connection through p, as if its
// pool had dialled addr: the connection is authenticated end to end, and
// the proxy decides when its bytes get there.
func poolThrough(t testing.TB, s *Server, addr string, p *holdProxy) {
	t.Helper()
	d := s.pool.Dialer
	must.Nil(t, d.TLS, must.Sprint("poolThrough dials without TLS"))
	raw, err := net.DialTimeout("tcp", p.addr(), leaderWait)
	must.NoError(t, err)
	wire := &countingConn{Conn: raw}
	_, err = wire.Write([]byte{nomadrpc.ConnTypeRPC})
	must.NoError(t, err)
	proven, err := nomadrpc.DialHandshake(wire, nomadrpc.ConnTypeRPC, d.Creds, d.Instance, time.Now().Add(leaderWait))
	must.NoError(t, err)
	conn := &tapConn{Conn: proven, wire: wire}
	p.mu.Lock()
	p.taps = append(p.taps, conn)
	p.mu.Unlock()

	s.pool.Replace(addr, conn)
}

// otherLeader waits until raft names a leader other than old, and
// returns it.
func (c *testCluster) otherLeader(old *Server) *Server {
	c.t.Helper()
	var leader *Server
	waitfor.True(c.t, "a leader other than "+old.config.NodeName, func() bool {
		for _, s := range c.servers {
			if s != old && s.IsLeader() {
				leader = s
				return true
			}
		}
		return false
	})
	return leader
}
