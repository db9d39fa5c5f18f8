package nomad

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// The first byte a dialer writes on a connection to the RPC port says what
// the connection carries.
const (
	connTypeRaft byte = 0x01
	connTypeRPC  byte = 0x02
)

// connTypeReadTimeout bounds how long an accepted connection may take to say
// what it is, so a silent peer cannot pin a goroutine.
const connTypeReadTimeout = 10 * time.Second

// rpcMux owns the server's one TCP listener and hands each accepted
// connection to raft or to the RPC server according to its first byte.
type rpcMux struct {
	listener  net.Listener
	raftLayer *raftLayer
	rpcServer *rpc.Server
	logger    hclog.Logger

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	closed bool
	wg     sync.WaitGroup
}

func newRPCMux(l net.Listener, layer *raftLayer, srv *rpc.Server, logger hclog.Logger) *rpcMux {
	return &rpcMux{
		listener:  l,
		raftLayer: layer,
		rpcServer: srv,
		logger:    logger,
		conns:     make(map[*trackedConn]struct{}),
	}
}

// start runs the accept loop in the background.
func (m *rpcMux) start() {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.acceptLoop()
	}()
}

func (m *rpcMux) acceptLoop() {
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
		tc, ok := m.track(conn)
		if !ok {
			conn.Close()
			return
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.handleConn(tc)
		}()
	}
}

// handleConn reads the connection type byte and dispatches.
func (m *rpcMux) handleConn(conn *trackedConn) {
	var kind [1]byte
	_ = conn.SetReadDeadline(time.Now().Add(connTypeReadTimeout))
	if _, err := io.ReadFull(conn, kind[:]); err != nil {
		if !m.isClosed() && !errors.Is(err, io.EOF) {
			m.logger.Debug("read connection type", "remote", conn.RemoteAddr(), "error", err)
		}
		conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})

	switch kind[0] {
	case connTypeRaft:
		m.raftLayer.handoff(conn)
	case connTypeRPC:
		m.rpcServer.ServeCodec(jsonrpc.NewServerCodec(conn))
	default:
		m.logger.Warn("unknown connection type, closing", "remote", conn.RemoteAddr(), "type", fmt.Sprintf("%#x", kind[0]))
		conn.Close()
	}
}

// track registers an accepted connection so close can end it.
func (m *rpcMux) track(conn net.Conn) (*trackedConn, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false
	}
	tc := &trackedConn{Conn: conn}
	tc.onClose = func() {
		m.mu.Lock()
		delete(m.conns, tc)
		m.mu.Unlock()
	}
	m.conns[tc] = struct{}{}
	return tc, true
}

func (m *rpcMux) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// close stops accepting, closes every accepted connection and waits for the
// mux's goroutines to end.
func (m *rpcMux) close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
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
