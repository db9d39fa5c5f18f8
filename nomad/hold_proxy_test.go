package nomad

import (
	"net"
	"sync"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

// holdProxy relays TCP connections to a server, and can hold back what
// the connecting side sends: the bytes wait in the proxy, as they wait in
// the network during a partition or in the kernel of a process that is
// stopped, until release delivers them. What the server sends back is
// never held.
type holdProxy struct {
	t      testing.TB
	l      net.Listener
	target string

	mu      sync.Mutex
	release chan struct{} // nil while not holding; closed by release
	holding chan struct{} // closed once bytes are held
	conns   []net.Conn
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
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		go p.up(client, server)
		go p.down(server, client)
	}
}

// up copies what the client sends, waiting at the gate while held.
func (p *holdProxy) up(client, server net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			p.gate()
			if _, werr := server.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			server.Close()
			return
		}
	}
}

func (p *holdProxy) down(server, client net.Conn) {
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

// gate blocks while the proxy holds, after saying it holds something.
func (p *holdProxy) gate() {
	p.mu.Lock()
	release, holding := p.release, p.holding
	p.mu.Unlock()
	if release == nil {
		return
	}
	select {
	case <-holding:
	default:
		close(holding)
	}
	<-release
}

// hold starts holding what clients send from now on, and returns a
// channel closed once something is held.
func (p *holdProxy) hold() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.release, p.holding = make(chan struct{}), make(chan struct{})
	return p.holding
}

// deliver releases what is held, and lets everything through from now on.
func (p *holdProxy) deliver() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.release != nil {
		close(p.release)
		p.release = nil
	}
}

func (p *holdProxy) close() {
	p.l.Close()
	p.deliver()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// poolThrough makes s reach addr over a connection through p, as if its
// pool had dialled addr: the connection is authenticated end to end, and
// the proxy decides when its bytes get there.
func poolThrough(t testing.TB, s *Server, addr string, p *holdProxy) {
	t.Helper()
	conn, err := s.pool.dialer.dial(p.addr(), connTypeRPC, leaderWait)
	must.NoError(t, err)
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	if old, ok := s.pool.clients[addr]; ok {
		old.Close()
	}
	s.pool.clients[addr] = &pooledClient{Client: newRPCClient(conn), conn: conn}
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
