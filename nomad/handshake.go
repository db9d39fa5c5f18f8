package nomad

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
// ID), in small messages (rpc_request_limit.go).

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

	handshakeMagic = "DRV2"
	// legacyHandshakeMagic opened the challenge of Drover before the
	// handshake was bound to its connection; such a server cannot talk
	// to this one.
	legacyHandshakeMagic = "DRV1"

	instanceIDSize = 16
	nonceSize      = 32
	proofSize      = sha256.Size
	recordKeySize  = 32 // AES-256

	helloSize       = len(handshakeMagic) + instanceIDSize + nonceSize
	credentialsSize = 1 + instanceIDSize + nonceSize + proofSize

	// Verdicts.
	verdictOK        byte = 0
	verdictBadSecret byte = 1
	verdictNotServer byte = 2
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

// refusedCredentials reports whether err is a handshake that failed on
// credentials, one side's or the other's, or on versions: a
// misconfiguration to report, not a server that is down.
func refusedCredentials(err error) bool {
	return errors.Is(err, errHandshakeRefused) || errors.Is(err, errServerUnproven) || errors.Is(err, errOtherVersion)
}

// instanceID names one running server or RPC client, so that a handshake
// can tell that it is talking to itself. It is random, made at start.
type instanceID [instanceIDSize]byte

// newInstanceID makes a random instance ID.
func newInstanceID() instanceID {
	var id instanceID
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails
	return id
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

// transcript is everything the two sides of a handshake said that the
// proofs and keys depend on.
type transcript struct {
	kind       byte
	dialerRole connRole
	acceptor   instanceID
	challenge  [nonceSize]byte
	dialer     instanceID
	nonce      [nonceSize]byte
}

// transcriptLabel opens every transcript: a version 3 of the handshake
// changes it, so that no proof of one version passes in another.
const transcriptLabel = "drover rpc handshake v2"

// hash is the transcript's SHA-256. The acceptor is always a server.
func (t *transcript) hash() []byte {
	h := sha256.New()
	h.Write([]byte(transcriptLabel))
	h.Write([]byte{t.kind, byte(roleServer), byte(t.dialerRole)})
	h.Write(t.acceptor[:])
	h.Write(t.challenge[:])
	h.Write(t.dialer[:])
	h.Write(t.nonce[:])
	return h.Sum(nil)
}

// Labels of what a handshake derives.
const (
	labelDialerProof   = "dialer proof"
	labelAcceptorProof = "acceptor proof"
	labelDialerSends   = "record key dialer to acceptor"
	labelAcceptorSends = "record key acceptor to dialer"
)

// sessionSecrets are what both sides of a proven handshake derive.
type sessionSecrets struct {
	dialerProof, acceptorProof []byte
	dialerSends, acceptorSends []byte // record keys
}

// deriveSession derives a handshake's proofs and record keys from the
// role's secret and the transcript.
func deriveSession(secret []byte, t *transcript) (sessionSecrets, error) {
	prk, err := hkdf.Extract(sha256.New, secret, t.hash())
	if err != nil {
		return sessionSecrets{}, fmt.Errorf("derive handshake keys: %w", err)
	}
	var s sessionSecrets
	for _, d := range []struct {
		out   *[]byte
		label string
		size  int
	}{
		{&s.dialerProof, labelDialerProof, proofSize},
		{&s.acceptorProof, labelAcceptorProof, proofSize},
		{&s.dialerSends, labelDialerSends, recordKeySize},
		{&s.acceptorSends, labelAcceptorSends, recordKeySize},
	} {
		if *d.out, err = hkdf.Expand(sha256.New, prk, d.label, d.size); err != nil {
			return sessionSecrets{}, fmt.Errorf("derive %s: %w", d.label, err)
		}
	}
	return s, nil
}

// dialHandshake proves creds on a connection that the dialer self opened
// for kind, checks the server's proof in turn, and returns the
// connection to use from then on: sealed in records, or conn itself for an
// anonymous dialer.
func dialHandshake(conn net.Conn, kind byte, creds credentials, self instanceID, deadline time.Time) (net.Conn, error) {
	_ = conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})

	t := transcript{kind: kind, dialerRole: creds.role, dialer: self}
	if err := readHello(conn, &t); err != nil {
		return nil, err
	}
	if t.acceptor == self {
		return nil, fmt.Errorf("%w: the challenge came from this very process: the connection was reflected back to where it came from", errHandshakeRefused)
	}
	_, _ = rand.Read(t.nonce[:])
	var session sessionSecrets
	if creds.role != roleAnonymous {
		var err error
		if session, err = deriveSession(creds.secret, &t); err != nil {
			return nil, err
		}
	}
	msg := make([]byte, 0, credentialsSize)
	msg = append(msg, byte(creds.role))
	msg = append(msg, self[:]...)
	msg = append(msg, t.nonce[:]...)
	if creds.role != roleAnonymous {
		msg = append(msg, session.dialerProof...)
	} else {
		msg = append(msg, make([]byte, proofSize)...)
	}
	if _, err := conn.Write(msg); err != nil {
		return nil, fmt.Errorf("send credentials: %w", err)
	}

	var verdict [1]byte
	if _, err := io.ReadFull(conn, verdict[:]); err != nil {
		return nil, fmt.Errorf("read the server's verdict: %w", err)
	}
	switch verdict[0] {
	case verdictOK:
	case verdictNotServer:
		return nil, fmt.Errorf("%w: only servers may open this kind of connection", errHandshakeRefused)
	case verdictReflected:
		return nil, fmt.Errorf("%w: the server received this connection from itself", errHandshakeRefused)
	default:
		return nil, fmt.Errorf("%w: as a %s", errHandshakeRefused, creds.role)
	}
	if creds.role == roleAnonymous {
		return conn, nil
	}
	proof := make([]byte, proofSize)
	if _, err := io.ReadFull(conn, proof); err != nil {
		return nil, fmt.Errorf("read the server's proof: %w", err)
	}
	if !hmac.Equal(proof, session.acceptorProof) {
		return nil, errServerUnproven
	}
	return sealConn(conn, session.dialerSends, session.acceptorSends)
}

// readHello reads the acceptor's hello into t.
func readHello(conn net.Conn, t *transcript) error {
	magic := make([]byte, len(handshakeMagic))
	if _, err := io.ReadFull(conn, magic); err != nil {
		return fmt.Errorf("read the server's challenge: %w", err)
	}
	switch string(magic) {
	case handshakeMagic:
	case tlsRequiredMagic:
		return fmt.Errorf("%w: the server takes TLS connections only: set tls.rpc and its files on this agent too", errHandshakeRefused)
	case legacyHandshakeMagic:
		return fmt.Errorf("%w (it sent handshake v1, this agent speaks v2)", errOtherVersion)
	default:
		return errors.New("the server did not send a Drover challenge: is it a Drover server's RPC port?")
	}
	rest := make([]byte, instanceIDSize+nonceSize)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return fmt.Errorf("read the server's challenge: %w", err)
	}
	copy(t.acceptor[:], rest)
	copy(t.challenge[:], rest[instanceIDSize:])
	return nil
}

// acceptHandshake challenges the dialer of a connection of kind, which
// the acceptor self accepted, and returns the role it proved and the
// connection to serve: sealed in records, or conn itself for an anonymous
// peer. Only a server may open a raft connection. On an error the
// connection is to be closed.
func acceptHandshake(conn net.Conn, kind byte, secrets acceptorSecrets, self instanceID, deadline time.Time) (net.Conn, connRole, error) {
	_ = conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})

	t := transcript{kind: kind, acceptor: self}
	_, _ = rand.Read(t.challenge[:])
	hello := make([]byte, 0, helloSize)
	hello = append(hello, handshakeMagic...)
	hello = append(hello, self[:]...)
	hello = append(hello, t.challenge[:]...)
	if _, err := conn.Write(hello); err != nil {
		return nil, 0, fmt.Errorf("send challenge: %w", err)
	}
	msg := make([]byte, credentialsSize)
	if _, err := io.ReadFull(conn, msg); err != nil {
		// A dialer of the previous version hangs up on this challenge.
		return nil, 0, fmt.Errorf("read credentials (a Drover of another version hangs up here): %w", err)
	}
	t.dialerRole = connRole(msg[0])
	copy(t.dialer[:], msg[1:])
	copy(t.nonce[:], msg[1+instanceIDSize:])
	proof := msg[1+instanceIDSize+nonceSize:]

	refuse := func(verdict byte, err error) (net.Conn, connRole, error) {
		_, _ = conn.Write([]byte{verdict})
		return nil, 0, err
	}
	if t.dialer == self {
		return refuse(verdictReflected, errors.New("the peer presented this server's own instance ID: a connection of this server's, reflected back to it"))
	}
	role := t.dialerRole
	var session sessionSecrets
	switch role {
	case roleAnonymous:
	case roleClient, roleServer:
		secret := secrets.forRole(role)
		if len(secret) == 0 {
			return refuse(verdictBadSecret, fmt.Errorf("the peer claimed to be a %s, which this server has no secret for", role))
		}
		var err error
		if session, err = deriveSession(secret, &t); err != nil {
			return nil, 0, err
		}
		if !hmac.Equal(proof, session.dialerProof) {
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
		reply = append(reply, session.acceptorProof...)
	}
	if _, err := conn.Write(reply); err != nil {
		return nil, 0, fmt.Errorf("send verdict: %w", err)
	}
	if role == roleAnonymous {
		return conn, role, nil
	}
	sealed, err := sealConn(conn, session.acceptorSends, session.dialerSends)
	return sealed, role, err
}
