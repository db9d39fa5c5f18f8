package rpc

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// errLayerClosed is what Accept returns once the raft layer is closed.
var errLayerClosed = errors.New("raft stream layer closed")

// RaftLayer is raft's view of the shared RPC port: it accepts the
// connections the mux identified as raft traffic and dials other servers,
// announcing raft traffic with the first byte.
type RaftLayer struct {
	addr   net.Addr // the advertised address: what raft tells its peers
	dialer *Dialer
	conns  chan net.Conn

	closeOnce sync.Once
	closeCh   chan struct{}
}

var _ raft.StreamLayer = (*RaftLayer)(nil)

func NewRaftLayer(advertise net.Addr, dialer *Dialer) *RaftLayer {
	return &RaftLayer{
		addr:    advertise,
		dialer:  dialer,
		conns:   make(chan net.Conn),
		closeCh: make(chan struct{}),
	}
}

// handoff gives an accepted raft connection to the transport, or closes it
// when the layer is closed.
func (l *RaftLayer) handoff(conn net.Conn) {
	select {
	case l.conns <- conn:
	case <-l.closeCh:
		conn.Close()
	}
}

// Accept implements net.Listener.
func (l *RaftLayer) Accept() (net.Conn, error) {
	select {
	case conn := <-l.conns:
		return conn, nil
	case <-l.closeCh:
		return nil, errLayerClosed
	}
}

// Close implements net.Listener. The underlying listener belongs to the mux.
func (l *RaftLayer) Close() error {
	l.closeOnce.Do(func() { close(l.closeCh) })
	return nil
}

// Addr implements net.Listener.
func (l *RaftLayer) Addr() net.Addr {
	return l.addr
}

// Dial implements raft.StreamLayer.
func (l *RaftLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	select {
	case <-l.closeCh:
		return nil, errLayerClosed
	default:
	}
	return l.dialer.Dial(string(address), ConnTypeRaft, timeout)
}
