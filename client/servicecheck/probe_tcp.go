package servicecheck

import (
	"context"
	"fmt"
	"net"
)

// TCPProbe passes when a connection to Addr opens.
type TCPProbe struct {
	Addr string
}

// Probe implements Prober.
func (p TCPProbe) Probe(ctx context.Context) Result {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", p.Addr)
	if err != nil {
		return Result{Health: Critical, Output: cut(fmt.Sprintf("nomad: tcp %s: %v", p.Addr, err))}
	}
	conn.Close()
	return Result{Health: Passing, Output: "nomad: tcp ok"}
}
