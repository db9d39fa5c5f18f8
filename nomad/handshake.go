package nomad

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Without TLS, a connection to the RPC port proves what its dialer is
// right after the connection-type byte, by a challenge and response over
// HMAC-SHA256, so that no secret ever crosses the network:
//
//	acceptor -> dialer   "DRV1" and a 32-byte random challenge
//	dialer   -> acceptor the role it claims (1 byte), a 32-byte random
//	                     nonce of its own, and the MAC of both under the
//	                     role's secret (zeros when it claims no role)
//	acceptor -> dialer   a verdict byte; when it accepted a role, the MAC
//	                     of both nonces under the same secret, proving that
//	                     it holds the secret too
//
// A server proves the cluster key (the servers' encrypt setting); a client
// agent proves the registration secret derived from it. Both MACs cover
// the connection type and the role, and are labelled by direction, so that
// neither can be replayed as the other. The handshake authenticates the
// connection when it is made; what follows travels in the clear, and an
// attacker on the network path can read or alter it. tls.rpc is the
// answer to that.

// connRole is what the peer of an accepted connection proved to be.
type connRole byte

const (
	// roleAnonymous proved nothing. It may call the Client endpoints,
	// where every call proves a node's secret ID.
	roleAnonymous connRole = 0
	// roleClient proved the registration secret: a client agent, which
	// may also register new nodes.
	roleClient connRole = 1
	// roleServer proved the cluster key: a server of the cluster, which
	// may use raft and every endpoint.
	roleServer connRole = 2
)

func (r connRole) String() string {
	switch r {
	case roleAnonymous:
		return "anonymous"
	case roleClient:
		return "client"
	case roleServer:
		return "server"
	}
	return fmt.Sprintf("role(%d)", byte(r))
}

// With tls.rpc on, a connection announces TLS with its first byte instead
// (connTypeTLS), and the connection type byte follows inside TLS. The
// certificate the dialer presented says its role: server.<region>.nomad or
// client.<region>.nomad. The server answers the type byte with a verdict
// byte, as above. A server with TLS on answers a connection that
// announced anything else with tlsRequiredMagic and closes it.

// connTypeTLS announces a TLS connection; the connection type follows
// inside it.
const connTypeTLS byte = 0x04

const (
	// tlsRequiredMagic tells a plaintext dialer that the server takes
	// TLS connections only.
	tlsRequiredMagic = "DRVT"

	handshakeMagic = "DRV1"
	nonceSize      = 32
	macSize        = sha256.Size

	// Verdicts.
	verdictOK        byte = 0
	verdictBadSecret byte = 1
	verdictNotServer byte = 2
)

// Errors of the dialing side of a handshake.
var (
	// errHandshakeRefused: the server did not accept what this dialer
	// proved.
	errHandshakeRefused = errors.New("the server refused this connection's credentials")
	// errServerUnproven: the server could not prove it holds the secret.
	errServerUnproven = errors.New("the server could not prove it holds the cluster's secret")
)

// refusedCredentials reports whether err is a handshake that failed on
// credentials, one side's or the other's: a misconfiguration to report,
// not a server that is down.
func refusedCredentials(err error) bool {
	return errors.Is(err, errHandshakeRefused) || errors.Is(err, errServerUnproven)
}

// credentials are what a dialer proves: a role and its secret.
type credentials struct {
	role   connRole
	secret []byte // nil for roleAnonymous
}

// acceptorSecrets are what the accepting side checks a claimed role
// against.
type acceptorSecrets struct {
	clusterKey   []byte
	registration []byte
}

func (s acceptorSecrets) forRole(r connRole) []byte {
	switch r {
	case roleServer:
		return s.clusterKey
	case roleClient:
		return s.registration
	}
	return nil
}

// handshakeMAC is the MAC one side of a handshake sends.
func handshakeMAC(secret []byte, label string, kind byte, role connRole, challenge, nonce []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	m.Write([]byte{kind, byte(role)})
	m.Write(challenge)
	m.Write(nonce)
	return m.Sum(nil)
}

const (
	labelDialer   = "drover rpc dialer"
	labelAcceptor = "drover rpc acceptor"
)

// dialHandshake proves creds on a connection the dialer opened for kind,
// and checks the server's proof in turn.
func dialHandshake(conn net.Conn, kind byte, creds credentials, deadline time.Time) error {
	_ = conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})

	magic := make([]byte, len(handshakeMagic))
	if _, err := io.ReadFull(conn, magic); err != nil {
		return fmt.Errorf("read the server's challenge: %w", err)
	}
	switch string(magic) {
	case handshakeMagic:
	case tlsRequiredMagic:
		return fmt.Errorf("%w: the server takes TLS connections only: set tls.rpc and its files on this agent too", errHandshakeRefused)
	default:
		return errors.New("the server did not send a Drover challenge: is it a Drover server of this version?")
	}
	challenge := make([]byte, nonceSize)
	if _, err := io.ReadFull(conn, challenge); err != nil {
		return fmt.Errorf("read the server's challenge: %w", err)
	}

	msg := make([]byte, 1+nonceSize+macSize)
	msg[0] = byte(creds.role)
	nonce := msg[1 : 1+nonceSize]
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("generate nonce: %w", err)
	}
	if creds.role != roleAnonymous {
		copy(msg[1+nonceSize:], handshakeMAC(creds.secret, labelDialer, kind, creds.role, challenge, nonce))
	}
	if _, err := conn.Write(msg); err != nil {
		return fmt.Errorf("send credentials: %w", err)
	}

	var verdict [1]byte
	if _, err := io.ReadFull(conn, verdict[:]); err != nil {
		return fmt.Errorf("read the server's verdict: %w", err)
	}
	switch verdict[0] {
	case verdictOK:
	case verdictNotServer:
		return fmt.Errorf("%w: only servers may open this kind of connection", errHandshakeRefused)
	default:
		return fmt.Errorf("%w: as a %s", errHandshakeRefused, creds.role)
	}
	if creds.role == roleAnonymous {
		return nil
	}
	proof := make([]byte, macSize)
	if _, err := io.ReadFull(conn, proof); err != nil {
		return fmt.Errorf("read the server's proof: %w", err)
	}
	if !hmac.Equal(proof, handshakeMAC(creds.secret, labelAcceptor, kind, creds.role, challenge, nonce)) {
		return errServerUnproven
	}
	return nil
}

// acceptHandshake challenges the dialer of a connection of kind and
// returns the role it proved. Only a server may open a raft connection.
// On an error the connection is to be closed.
func acceptHandshake(conn net.Conn, kind byte, secrets acceptorSecrets, deadline time.Time) (connRole, error) {
	_ = conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})

	hello := make([]byte, len(handshakeMagic)+nonceSize)
	copy(hello, handshakeMagic)
	challenge := hello[len(handshakeMagic):]
	if _, err := rand.Read(challenge); err != nil {
		return 0, fmt.Errorf("generate challenge: %w", err)
	}
	if _, err := conn.Write(hello); err != nil {
		return 0, fmt.Errorf("send challenge: %w", err)
	}
	msg := make([]byte, 1+nonceSize+macSize)
	if _, err := io.ReadFull(conn, msg); err != nil {
		return 0, fmt.Errorf("read credentials: %w", err)
	}
	role := connRole(msg[0])
	nonce, mac := msg[1:1+nonceSize], msg[1+nonceSize:]

	refuse := func(verdict byte, err error) (connRole, error) {
		_, _ = conn.Write([]byte{verdict})
		return 0, err
	}
	var secret []byte
	switch role {
	case roleAnonymous:
	case roleClient, roleServer:
		secret = secrets.forRole(role)
		if len(secret) == 0 || !hmac.Equal(mac, handshakeMAC(secret, labelDialer, kind, role, challenge, nonce)) {
			return refuse(verdictBadSecret, fmt.Errorf("the peer claimed to be a %s and could not prove it", role))
		}
	default:
		return refuse(verdictBadSecret, fmt.Errorf("the peer claimed an unknown role %d", byte(role)))
	}
	if kind == connTypeRaft && role != roleServer {
		return refuse(verdictNotServer, fmt.Errorf("a %s peer opened a raft connection", role))
	}
	reply := []byte{verdictOK}
	if role != roleAnonymous {
		reply = append(reply, handshakeMAC(secret, labelAcceptor, kind, role, challenge, nonce)...)
	}
	if _, err := conn.Write(reply); err != nil {
		return 0, fmt.Errorf("send verdict: %w", err)
	}
	return role, nil
}
