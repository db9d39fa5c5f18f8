package rpc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// The first byte a dialer writes on a connection to the RPC port says what
// the connection carries.
const (
	ConnTypeRaft byte = 0x01
	ConnTypeRPC  byte = 0x02
)

// Mux owns the server's one TCP listener. It makes each accepted
// connection say what it carries (its first byte) and prove who its peer
// is (see handshake.go), then hands it to raft or to the RPC server of
// the peer's role.
type Mux struct {
	listener  net.Listener
	raftLayer *RaftLayer
	servers   Servers
	auth      MuxAuth
	limits    MuxLimits
	logger    hclog.Logger

	// ctx ends with the mux: connections waiting for budget give up.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	perIP  map[string]int
	closed bool
	wg     sync.WaitGroup
}

// MuxAuth is how the mux learns what a connection's peer is.
type MuxAuth struct {
	// Secrets check the handshake of plaintext connections, and
	// instance is this server's in them.
	Secrets  AcceptorSecrets
	Instance InstanceID
	// tls, when set, is the only way in: mutual TLS, the peer's role
	// named by its certificate in region.
	TLS    *tls.Config
	Region string
}

// MuxLimits bound what one peer can hold of the RPC port.
type MuxLimits struct {
	// HandshakeTimeout bounds how long an accepted connection may take
	// to say what it is and prove who its peer is, so that a silent peer
	// cannot pin a goroutine.
	HandshakeTimeout time.Duration
	// MaxConnsPerIP caps the connections open at once from one IP
	// address; 0 is no cap.
	MaxConnsPerIP int
	// requests bounds what the connections of each role may send; nil
	// is defaultRoleBounds.
	requests roleBounds
}

func NewMux(l net.Listener, layer *RaftLayer, servers Servers, auth MuxAuth, limits MuxLimits, logger hclog.Logger) *Mux {
	if limits.requests == nil {
		limits.requests = defaultRoleBounds()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Mux{
		ctx:       ctx,
		cancel:    cancel,
		listener:  l,
		raftLayer: layer,
		servers:   servers,
		auth:      auth,
		limits:    limits,
		logger:    logger,
		conns:     make(map[*trackedConn]struct{}),
		perIP:     make(map[string]int),
	}
}

// Start runs the accept loop in the background.
func (m *Mux) Start() {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.acceptLoop()
	}()
}

func (m *Mux) acceptLoop() {
	var backoff time.Duration
	for {
		conn, err := m.listener.Accept()
		if err != nil {
			if m.isClosed() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Temporary failures (out of file descriptors) clear up;
			// back off instead of spinning.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			m.logger.Error("accept RPC connection", "error", err, "retry_in", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		tc, err := m.track(conn)
		if errors.Is(err, errMuxClosed) {
			conn.Close()
			return
		}
		if err != nil {
			m.logger.Warn("refused RPC connection", "remote", conn.RemoteAddr(), "error", err)
			conn.Close()
			continue
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.handleConn(tc)
		}()
	}
}

// handleConn reads the connection type byte, authenticates the peer and
// dispatches.
func (m *Mux) handleConn(conn *trackedConn) {
	deadline := time.Now().Add(m.limits.HandshakeTimeout)
	var kind [1]byte
	_ = conn.SetReadDeadline(deadline)
	if _, err := io.ReadFull(conn, kind[:]); err != nil {
		if !m.isClosed() && !errors.Is(err, io.EOF) {
			m.logger.Debug("read connection type", "remote", conn.RemoteAddr(), "error", err)
		}
		conn.Close()
		return
	}
	served, carries, role, err := m.authenticate(conn, kind[0], deadline)
	if err != nil {
		if !m.isClosed() {
			m.logger.Warn("refused RPC connection", "remote", conn.RemoteAddr(), "error", err)
		}
		conn.Close()
		return
	}
	if carries == ConnTypeRaft {
		m.raftLayer.handoff(served)
		return
	}
	m.serveRPC(served, role)
}

// authenticate establishes what the peer of a connection that announced
// kind is: by its certificate with TLS on, else by the handshake. It
// returns the connection to serve (the TLS one, with TLS on), the type of
// traffic it carries and the peer's role.
func (m *Mux) authenticate(conn net.Conn, kind byte, deadline time.Time) (net.Conn, byte, ConnRole, error) {
	switch {
	case m.auth.TLS != nil && kind == connTypeTLS:
		return AcceptTLS(conn, m.auth.TLS, m.auth.Region, deadline)
	case m.auth.TLS != nil && (kind == ConnTypeRaft || kind == ConnTypeRPC):
		_ = conn.SetWriteDeadline(deadline)
		_, _ = conn.Write([]byte(tlsRequiredMagic))
		return nil, 0, 0, errors.New("a plaintext connection, and tls.rpc is on")
	case kind == connTypeTLS:
		return nil, 0, 0, errors.New("a TLS connection, and tls.rpc is off")
	case kind != ConnTypeRaft && kind != ConnTypeRPC:
		return nil, 0, 0, fmt.Errorf("unknown connection type %#x", kind)
	}
	served, role, err := acceptHandshake(conn, kind, m.auth.Secrets, m.auth.Instance, deadline)
	return served, kind, role, err
}

// serveRPC serves the calls of a connection whose peer proved role.
func (m *Mux) serveRPC(conn net.Conn, role ConnRole) {
	limited := limitRequests(m.ctx, conn, role, m.limits.requests[role])
	codec := holdBudget(newServerCodec(limited), limited)
	if role != RoleServer {
		codec = &restrictedCodec{ServerCodec: codec, remote: conn.RemoteAddr(), role: role, logger: m.logger}
	}
	m.servers[role].ServeCodec(limitCallsInFlight(codec, maxCallsInFlight))
}

// errMuxClosed: the mux closed while a connection was being accepted.
var errMuxClosed = errors.New("RPC listener closed")

// track registers an accepted connection so close can end it, unless its
// IP address holds as many connections as it may.
func (m *Mux) track(conn net.Conn) (*trackedConn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errMuxClosed
	}
	ip := remoteIP(conn)
	if limit := m.limits.MaxConnsPerIP; limit > 0 && m.perIP[ip] >= limit {
		return nil, fmt.Errorf("%s already holds %d connections, the most rpc_max_conns_per_client allows", ip, limit)
	}
	tc := &trackedConn{Conn: conn}
	tc.onClose = func() {
		m.mu.Lock()
		delete(m.conns, tc)
		if m.perIP[ip]--; m.perIP[ip] <= 0 {
			delete(m.perIP, ip)
		}
		m.mu.Unlock()
	}
	m.conns[tc] = struct{}{}
	m.perIP[ip]++
	return tc, nil
}

// remoteIP is the IP address of a connection's peer.
func remoteIP(conn net.Conn) string {
	if addr, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return addr.IP.String()
	}
	host, _, err := net.SplitHostPort(conn.RemoteAddr().String())
	if err != nil {
		return conn.RemoteAddr().String()
	}
	return host
}

func (m *Mux) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// Close stops accepting, closes every accepted connection and waits for the
// mux's goroutines to end.
func (m *Mux) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.cancel()
	conns := make([]*trackedConn, 0, len(m.conns))
	for c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()

	err := m.listener.Close()
	// Ending the read side first lets every reader see a clean end of
	// stream, and lets RPC handlers still in flight send their answers.
	for _, c := range conns {
		c.closeRead()
	}
	m.wg.Wait()
	// Whatever is left (raft connections whose reader has not noticed
	// yet) is closed outright.
	m.mu.Lock()
	conns = conns[:0]
	for c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// trackedConn tells the mux when it is closed, whoever closes it.
type trackedConn struct {
	net.Conn
	once    sync.Once
	onClose func()
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.onClose)
	return err
}

// closeRead ends the read side of the connection, or all of it when the
// connection cannot be half-closed.
func (c *trackedConn) closeRead() {
	if cr, ok := c.Conn.(interface{ CloseRead() error }); ok && cr.CloseRead() == nil {
		return
	}
	c.Close()
}

// SetMaxConnsPerIP changes the cap on each IP's connections; 0 lifts it.
func (m *Mux) SetMaxConnsPerIP(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limits.MaxConnsPerIP = n
}
