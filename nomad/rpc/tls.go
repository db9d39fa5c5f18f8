package rpc

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/drover-io/drover/internal/tlsutil"
)

// TLS is mutual TLS on the RPC port (the agent's tls.rpc): every
// connection, raft's and RPC's, runs over TLS, and the certificate each
// side presents says what it is.
type TLS struct {
	// Material is the CA that signs the cluster's certificates, and this
	// agent's certificate and key.
	Material *tlsutil.Material

	// VerifyServerHostname makes the dialing side insist that the server
	// it reached presents a certificate naming server.<region>.nomad;
	// without it, any certificate the CA signed passes on that side. The
	// accepting side always reads the dialer's role from its certificate.
	VerifyServerHostname bool
}

// DialConfig is the TLS configuration of connections to the servers of
// region.
func (t *TLS) DialConfig(region string) *tls.Config {
	if t.VerifyServerHostname {
		return t.Material.DialConfig(region, tlsutil.RoleServer)
	}
	return t.Material.DialConfig(region)
}

// AcceptConfig is the TLS configuration of the RPC listener: every peer
// presents a certificate the CA signed. No session tickets: the pool
// probes idle connections by peeking at the socket, where a ticket would
// read as traffic.
func (t *TLS) AcceptConfig() *tls.Config {
	cfg := t.Material.ServerConfig(true)
	cfg.SessionTicketsDisabled = true
	return cfg
}

// dialTLS runs a TLS connection of kind over raw, which the dialer just
// opened to address, and waits for the server's verdict.
func dialTLS(raw net.Conn, cfg *tls.Config, address string, kind byte, deadline time.Time) (net.Conn, error) {
	_ = raw.SetDeadline(deadline)
	if _, err := raw.Write([]byte{connTypeTLS}); err != nil {
		return nil, fmt.Errorf("announce TLS to %s: %w", address, err)
	}
	conn := tls.Client(raw, cfg)
	if err := conn.Handshake(); err != nil {
		return nil, tlsError(fmt.Sprintf("TLS handshake with %s", address), err)
	}
	if _, err := conn.Write([]byte{kind}); err != nil {
		return nil, fmt.Errorf("announce connection type to %s: %w", address, err)
	}
	var verdict [1]byte
	if _, err := io.ReadFull(conn, verdict[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			// The server closes at once a connection whose certificate
			// it refused after the handshake.
			return nil, fmt.Errorf("%s closed the connection: does it take TLS connections (tls.rpc), and this agent's certificate?", address)
		}
		return nil, tlsError(fmt.Sprintf("read the verdict of %s", address), err)
	}
	switch verdict[0] {
	case VerdictOK:
	case VerdictNotServer:
		return nil, fmt.Errorf("%w: only a server's certificate opens this kind of connection", errHandshakeRefused)
	default:
		return nil, fmt.Errorf("%w: the certificate names no role of region", errHandshakeRefused)
	}
	_ = raw.SetDeadline(time.Time{})
	return conn, nil
}

// tlsError describes a TLS failure of the dialing side: a refusal of
// credentials (certificates that did not check out, on one side or the
// other; the server's refusal arrives as a TLS alert) unless the
// connection timed out or broke.
func tlsError(what string, err error) error {
	var netErr net.Error
	if (errors.As(err, &netErr) && netErr.Timeout()) || connectionLost(err) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %w", errHandshakeRefused, what, err)
}

// AcceptTLS runs the accepting side of a TLS connection over raw, which
// announced TLS, and returns the connection, its type and the role its
// peer's certificate names in region. On an error the connection is to be
// closed.
func AcceptTLS(raw net.Conn, cfg *tls.Config, region string, deadline time.Time) (net.Conn, byte, ConnRole, error) {
	_ = raw.SetDeadline(deadline)
	conn := tls.Server(raw, cfg)
	if err := conn.Handshake(); err != nil {
		return nil, 0, 0, fmt.Errorf("TLS handshake: %w", err)
	}
	var kind [1]byte
	if _, err := io.ReadFull(conn, kind[:]); err != nil {
		return nil, 0, 0, fmt.Errorf("read connection type: %w", err)
	}
	if kind[0] != ConnTypeRaft && kind[0] != ConnTypeRPC {
		return nil, 0, 0, fmt.Errorf("unknown connection type %#x", kind[0])
	}
	leaf := conn.ConnectionState().PeerCertificates[0]
	name, ok := tlsutil.RoleOf(leaf, region)
	if !ok {
		_, _ = conn.Write([]byte{VerdictBadSecret})
		return nil, 0, 0, fmt.Errorf("the peer's certificate (CN=%s) names neither %s nor %s",
			leaf.Subject.CommonName, tlsutil.Name(tlsutil.RoleServer, region), tlsutil.Name(tlsutil.RoleClient, region))
	}
	role := RoleClient
	if name == tlsutil.RoleServer {
		role = RoleServer
	}
	if kind[0] == ConnTypeRaft && role != RoleServer {
		_, _ = conn.Write([]byte{VerdictNotServer})
		return nil, 0, 0, fmt.Errorf("a %s certificate (CN=%s) opened a raft connection", role, leaf.Subject.CommonName)
	}
	if _, err := conn.Write([]byte{VerdictOK}); err != nil {
		return nil, 0, 0, fmt.Errorf("send verdict: %w", err)
	}
	_ = raw.SetDeadline(time.Time{})
	return conn, kind[0], role, nil
}
