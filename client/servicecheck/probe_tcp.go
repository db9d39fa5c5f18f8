package servicecheck

import (
	"context"
	"fmt"
	"net"
	"syscall"
)

// DialControl vets the address a probe connects to before it connects
// (a net.Dialer's Control); nil lets every address through.
type DialControl func(network, address string, c syscall.RawConn) error

// TCPProbe passes when a connection to Addr opens.
type TCPProbe struct {
	Addr string
	// Control refuses addresses the client's policy refuses; nil for
	// none.
	Control DialControl
}

// Probe implements Prober.
func (p TCPProbe) Probe(ctx context.Context) Result {
	d := net.Dialer{Control: p.Control}
	conn, err := d.DialContext(ctx, "tcp", p.Addr)
	if err != nil {
		return Result{Health: Critical, Output: cut(fmt.Sprintf("nomad: tcp %s: %v", p.Addr, err))}
	}
	conn.Close()
	return Result{Health: Passing, Output: "nomad: tcp ok"}
}
