package rpc

import (
	"crypto/hkdf"
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
// right after the connection-type byte, by a challenge and response keyed
// on a secret that never crosses the network, and every byte after that
// travels in authenticated, encrypted records (record.go) under keys that
// only the two ends of this one connection hold:
//
//	acceptor -> dialer   "DRV2", the acceptor's instance ID (16 bytes) and
//	                     a 32-byte random challenge
//	dialer   -> acceptor the role it claims (1 byte), its own instance ID,
//	                     a 32-byte random nonce, and its proof (32 bytes,
//	                     zeros when it claims no role)
//	acceptor -> dialer   a verdict byte; when it accepted a role, its own
//	                     proof (32 bytes)
//
// Everything both sides said is the transcript: the connection type, both
// roles, both instance IDs, the challenge and the nonce. Each side derives
// from the role's secret and the transcript (HKDF-SHA256, the transcript's
// hash as the salt) one proof for each direction and one record key for
// each direction. So:
//
//   - a proof is valid for one connection only: the acceptor's challenge is
//     new on every connection, and the dialer's nonce too;
//   - a dialer's proof is never an acceptor's, nor the reverse: they are
//     derived under different labels;
//   - a proof is never valid for the process that made it: an instance ID
//     is random per server or client, made when it starts; a dialer that
//     receives its own ID as the acceptor's, and an acceptor that receives
//     its own as the dialer's, refuse: that is a connection reflected back
//     to where it came from, and an attacker that rewrites the ID to get
//     past the check changes the transcript, so that the proofs no longer
//     match;
//   - a connection that an attacker relays between two members it does not
//     belong to (a server dialing a stale address, which passes everything
//     to another server) proves the two members to each other and nobody
//     else: what follows is sealed under keys the relay does not have, so
//     that it can neither read nor inject, replay, reorder or cut a record
//     without the receiver noticing and closing the connection.
//
// A server proves the cluster key (the servers' encrypt setting); a client
// agent proves the registration secret derived from it. A dialer that
// claims no role (anonymous) proves nothing, gets no keys and speaks in the
// clear, to the Client endpoints only (each call proves a node's secret
// ID), in small messages (request_limit.go).

// ConnRole is what the peer of an accepted connection proved to be.
type ConnRole byte

const (
	// RoleAnonymous proved nothing. It may call the Client endpoints,
	// where every call proves a node's secret ID.
	RoleAnonymous ConnRole = 0
	// RoleClient proved the registration secret: a client agent, which
	// may also register new nodes.
	RoleClient ConnRole = 1
	// RoleServer proved the cluster key: a server of the cluster, which
	// may use raft and every endpoint.
	RoleServer ConnRole = 2
)

func (r ConnRole) String() string {
	switch r {
	case RoleAnonymous:
		return "anonymous"
	case RoleClient:
		return "client"
	case RoleServer:
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

	HandshakeMagic = "DRV2"
	// legacyHandshakeMagic opened the challenge of Drover before the
	// handshake was bound to its connection; such a server cannot talk
	// to this one.
	legacyHandshakeMagic = "DRV1"

	InstanceIDSize = 16
	nonceSize      = 32
	ProofSize      = sha256.Size
	recordKeySize  = 32 // AES-256

	HelloSize       = len(HandshakeMagic) + InstanceIDSize + nonceSize
	credentialsSize = 1 + InstanceIDSize + nonceSize + ProofSize

	// Verdicts.
	VerdictOK        byte = 0
	VerdictBadSecret byte = 1
	VerdictNotServer byte = 2
	verdictReflected byte = 3
)

// Errors of the dialing side of a handshake.
var (
	// errHandshakeRefused: the server did not accept what this dialer
	// proved.
	errHandshakeRefused = errors.New("the server refused this connection's credentials")
	// errServerUnproven: the server could not prove it holds the secret.
	errServerUnproven = errors.New("the server could not prove it holds the cluster's secret")
	// errOtherVersion: the peer speaks another version of the handshake.
	errOtherVersion = errors.New("the server speaks another version of Drover's RPC handshake: run the same Drover version on every agent of the cluster")
)

// RefusedCredentials reports whether err is a handshake that failed on
// credentials, one side's or the other's, or on versions: a
// misconfiguration to report, not a server that is down.
func RefusedCredentials(err error) bool {
	return errors.Is(err, errHandshakeRefused) || errors.Is(err, errServerUnproven) || errors.Is(err, errOtherVersion)
}

// InstanceID names one running server or RPC client, so that a handshake
// can tell that it is talking to itself. It is random, made at start.
type InstanceID [InstanceIDSize]byte

// NewInstanceID makes a random instance ID.
func NewInstanceID() InstanceID {
	var id InstanceID
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails
	return id
}

// Credentials are what a dialer proves: a role and its secret.
type Credentials struct {
	Role   ConnRole
	Secret []byte // nil for roleAnonymous
}

// AcceptorSecrets are what the accepting side checks a claimed role
// against.
type AcceptorSecrets struct {
	ClusterKey   []byte
	Registration []byte
}

func (s AcceptorSecrets) forRole(r ConnRole) []byte {
	switch r {
	case RoleServer:
		return s.ClusterKey
	case RoleClient:
		return s.Registration
	}
	return nil
}

// Transcript is everything the two sides of a handshake said that the
// proofs and keys depend on.
type Transcript struct {
	Kind       byte
	DialerRole ConnRole
	Acceptor   InstanceID
	Challenge  [nonceSize]byte
	Dialer     InstanceID
	Nonce      [nonceSize]byte
}

// transcriptLabel opens every transcript: a version 3 of the handshake
// changes it, so that no proof of one version passes in another.
const transcriptLabel = "drover rpc handshake v2"

// hash is the transcript's SHA-256. The acceptor is always a server.
func (t *Transcript) hash() []byte {
	h := sha256.New()
	h.Write([]byte(transcriptLabel))
	h.Write([]byte{t.Kind, byte(RoleServer), byte(t.DialerRole)})
	h.Write(t.Acceptor[:])
	h.Write(t.Challenge[:])
	h.Write(t.Dialer[:])
	h.Write(t.Nonce[:])
	return h.Sum(nil)
}

// Labels of what a handshake derives.
const (
	labelDialerProof   = "dialer proof"
	labelAcceptorProof = "acceptor proof"
	labelDialerSends   = "record key dialer to acceptor"
	labelAcceptorSends = "record key acceptor to dialer"
)

// SessionSecrets are what both sides of a proven handshake derive.
type SessionSecrets struct {
	DialerProof, acceptorProof []byte
	dialerSends, acceptorSends []byte // record keys
}

// DeriveSession derives a handshake's proofs and record keys from the
// role's secret and the transcript.
func DeriveSession(secret []byte, t *Transcript) (SessionSecrets, error) {
	prk, err := hkdf.Extract(sha256.New, secret, t.hash())
	if err != nil {
		return SessionSecrets{}, fmt.Errorf("derive handshake keys: %w", err)
	}
	var s SessionSecrets
	for _, d := range []struct {
		out   *[]byte
		label string
		size  int
	}{
		{&s.DialerProof, labelDialerProof, ProofSize},
		{&s.acceptorProof, labelAcceptorProof, ProofSize},
		{&s.dialerSends, labelDialerSends, recordKeySize},
		{&s.acceptorSends, labelAcceptorSends, recordKeySize},
	} {
		if *d.out, err = hkdf.Expand(sha256.New, prk, d.label, d.size); err != nil {
			return SessionSecrets{}, fmt.Errorf("derive %s: %w", d.label, err)
		}
	}
	return s, nil
}

// DialHandshake proves creds on a connection that the dialer self opened
// for kind, checks the server's proof in turn, and returns the
// connection to use from then on: sealed in records, or conn itself for an
// anonymous dialer.
func DialHandshake(conn net.Conn, kind byte, creds Credentials, self InstanceID, deadline time.Time) (net.Conn, error) {
	_ = conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})

	t := Transcript{Kind: kind, DialerRole: creds.Role, Dialer: self}
	if err := readHello(conn, &t); err != nil {
		return nil, err
	}
	if t.Acceptor == self {
		return nil, fmt.Errorf("%w: the challenge came from this very process: the connection was reflected back to where it came from", errHandshakeRefused)
	}
	_, _ = rand.Read(t.Nonce[:])
	var session SessionSecrets
	if creds.Role != RoleAnonymous {
		var err error
		if session, err = DeriveSession(creds.Secret, &t); err != nil {
			return nil, err
		}
	}
	msg := make([]byte, 0, credentialsSize)
	msg = append(msg, byte(creds.Role))
	msg = append(msg, self[:]...)
	msg = append(msg, t.Nonce[:]...)
	if creds.Role != RoleAnonymous {
		msg = append(msg, session.DialerProof...)
	} else {
		msg = append(msg, make([]byte, ProofSize)...)
	}
	if _, err := conn.Write(msg); err != nil {
		return nil, fmt.Errorf("send credentials: %w", err)
	}

	var verdict [1]byte
	if _, err := io.ReadFull(conn, verdict[:]); err != nil {
		return nil, fmt.Errorf("read the server's verdict: %w", err)
	}
	switch verdict[0] {
	case VerdictOK:
	case VerdictNotServer:
		return nil, fmt.Errorf("%w: only servers may open this kind of connection", errHandshakeRefused)
	case verdictReflected:
		return nil, fmt.Errorf("%w: the server received this connection from itself", errHandshakeRefused)
	default:
		return nil, fmt.Errorf("%w: as a %s", errHandshakeRefused, creds.Role)
	}
	if creds.Role == RoleAnonymous {
		return conn, nil
	}
	proof := make([]byte, ProofSize)
	if _, err := io.ReadFull(conn, proof); err != nil {
		return nil, fmt.Errorf("read the server's proof: %w", err)
	}
	if !hmac.Equal(proof, session.acceptorProof) {
		return nil, errServerUnproven
	}
	return sealConn(conn, session.dialerSends, session.acceptorSends)
}

// readHello reads the acceptor's hello into t.
func readHello(conn net.Conn, t *Transcript) error {
	magic := make([]byte, len(HandshakeMagic))
	if _, err := io.ReadFull(conn, magic); err != nil {
		return fmt.Errorf("read the server's challenge: %w", err)
	}
	switch string(magic) {
	case HandshakeMagic:
	case tlsRequiredMagic:
		return fmt.Errorf("%w: the server takes TLS connections only: set tls.rpc and its files on this agent too", errHandshakeRefused)
	case legacyHandshakeMagic:
		return fmt.Errorf("%w (it sent handshake v1, this agent speaks v2)", errOtherVersion)
	default:
		return errors.New("the server did not send a Drover challenge: is it a Drover server's RPC port?")
	}
	rest := make([]byte, InstanceIDSize+nonceSize)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return fmt.Errorf("read the server's challenge: %w", err)
	}
	copy(t.Acceptor[:], rest)
	copy(t.Challenge[:], rest[InstanceIDSize:])
	return nil
}

// acceptHandshake challenges the dialer of a connection of kind, which
// the acceptor self accepted, and returns the role it proved and the
// connection to serve: sealed in records, or conn itself for an anonymous
// peer. Only a server may open a raft connection. On an error the
// connection is to be closed.
func acceptHandshake(conn net.Conn, kind byte, secrets AcceptorSecrets, self InstanceID, deadline time.Time) (net.Conn, ConnRole, error) {
	_ = conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})

	t := Transcript{Kind: kind, Acceptor: self}
	_, _ = rand.Read(t.Challenge[:])
	hello := make([]byte, 0, HelloSize)
	hello = append(hello, HandshakeMagic...)
	hello = append(hello, self[:]...)
	hello = append(hello, t.Challenge[:]...)
	if _, err := conn.Write(hello); err != nil {
		return nil, 0, fmt.Errorf("send challenge: %w", err)
	}
	msg := make([]byte, credentialsSize)
	if _, err := io.ReadFull(conn, msg); err != nil {
		// A dialer of the previous version hangs up on this challenge.
		return nil, 0, fmt.Errorf("read credentials (a Drover of another version hangs up here): %w", err)
	}
	t.DialerRole = ConnRole(msg[0])
	copy(t.Dialer[:], msg[1:])
	copy(t.Nonce[:], msg[1+InstanceIDSize:])
	proof := msg[1+InstanceIDSize+nonceSize:]

	refuse := func(verdict byte, err error) (net.Conn, ConnRole, error) {
		_, _ = conn.Write([]byte{verdict})
		return nil, 0, err
	}
	if t.Dialer == self {
		return refuse(verdictReflected, errors.New("the peer presented this server's own instance ID: a connection of this server's, reflected back to it"))
	}
	role := t.DialerRole
	var session SessionSecrets
	switch role {
	case RoleAnonymous:
	case RoleClient, RoleServer:
		secret := secrets.forRole(role)
		if len(secret) == 0 {
			return refuse(VerdictBadSecret, fmt.Errorf("the peer claimed to be a %s, which this server has no secret for", role))
		}
		var err error
		if session, err = DeriveSession(secret, &t); err != nil {
			return nil, 0, err
		}
		if !hmac.Equal(proof, session.DialerProof) {
			return refuse(VerdictBadSecret, fmt.Errorf("the peer claimed to be a %s and could not prove it", role))
		}
	default:
		return refuse(VerdictBadSecret, fmt.Errorf("the peer claimed an unknown role %d", byte(role)))
	}
	if kind == ConnTypeRaft && role != RoleServer {
		return refuse(VerdictNotServer, fmt.Errorf("a %s peer opened a raft connection", role))
	}
	reply := []byte{VerdictOK}
	if role != RoleAnonymous {
		reply = append(reply, session.acceptorProof...)
	}
	if _, err := conn.Write(reply); err != nil {
		return nil, 0, fmt.Errorf("send verdict: %w", err)
	}
	if role == RoleAnonymous {
		return conn, role, nil
	}
	sealed, err := sealConn(conn, session.acceptorSends, session.dialerSends)
	return sealed, role, err
}
