package rpc

import (
	"crypto/tls"
	"fmt"
	"net"
	"time"
)

// Dialer opens connections to servers' RPC ports and proves its
// credentials on each: over TLS, its certificate; without, creds, as the
// process instance names.
type Dialer struct {
	Creds    Credentials
	Instance InstanceID
	TLS      *tls.Config // nil: no TLS
}

// NewDialer is a dialer that proves creds as instance; the TLS
// configuration, if any, is set on it afterwards.
func NewDialer(creds Credentials, instance InstanceID) *Dialer {
	return &Dialer{Creds: creds, Instance: instance}
}

// Dial connects to address, announces kind and runs the handshake, all
// within timeout.
func (d *Dialer) Dial(address string, kind byte, timeout time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(timeout)
	conn, err := net.DialTimeout("tcp", address, timeout)
	if err != nil {
		return nil, err
	}
	if d.TLS != nil {
		tconn, err := dialTLS(conn, d.TLS, address, kind, deadline)
		if err != nil {
			conn.Close()
			return nil, err
		}
		return tconn, nil
	}
	_ = conn.SetWriteDeadline(deadline)
	if _, err := conn.Write([]byte{kind}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("announce connection type to %s: %w", address, err)
	}
	proven, err := DialHandshake(conn, kind, d.Creds, d.Instance, deadline)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("authenticate to %s: %w", address, err)
	}
	return proven, nil
}
