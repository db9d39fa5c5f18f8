package rpc

import (
	"crypto/rand"
	"errors"
	"io"
	"net"
	"testing"
	"testing/quick"
	"time"

	"github.com/shoenig/test/must"
)

// acceptResult and dialResult are what one side of a handshake ended
// with.
type acceptResult struct {
	conn net.Conn
	role ConnRole
	err  error
}

type dialResult struct {
	conn net.Conn
	err  error
}

// acceptOnPipe runs the accepting side of a handshake for a connection of
// kind as process self, and returns the other end of its connection and
// where its result arrives. The connection closes on an error, as the mux
// closes it.
func acceptOnPipe(t *testing.T, kind byte, secrets AcceptorSecrets, self InstanceID) (net.Conn, <-chan acceptResult) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	done := make(chan acceptResult, 1)
	go func() {
		conn, role, err := acceptHandshake(a, kind, secrets, self, time.Now().Add(testWait))
		if err != nil {
			a.Close()
		}
		done <- acceptResult{conn, role, err}
	}()
	return b, done
}

// dialOnPipe runs the dialing side of a handshake for a connection of kind
// as process self, as acceptOnPipe does the accepting side.
func dialOnPipe(t *testing.T, kind byte, creds Credentials, self InstanceID) (net.Conn, <-chan dialResult) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	done := make(chan dialResult, 1)
	go func() {
		conn, err := DialHandshake(a, kind, creds, self, time.Now().Add(testWait))
		if err != nil {
			a.Close()
		}
		done <- dialResult{conn, err}
	}()
	return b, done
}

// runHandshake runs both sides of a handshake for a connection of kind,
// each as a process of its own, over a pipe.
func runHandshake(t *testing.T, kind byte, creds Credentials, secrets AcceptorSecrets) (acceptResult, dialResult) {
	toAcceptor, accepted := acceptOnPipe(t, kind, secrets, NewInstanceID())
	toDialer, dialed := dialOnPipe(t, kind, creds, NewInstanceID())
	go func() { _, _ = io.Copy(toAcceptor, toDialer); toAcceptor.Close() }()
	go func() { _, _ = io.Copy(toDialer, toAcceptor); toDialer.Close() }()
	return <-accepted, <-dialed
}

var (
	handshakeKey      = []byte("0123456789abcdef0123456789abcdef")
	handshakeOtherKey = []byte("fedcba9876543210fedcba9876543210")
	handshakeSecrets  = AcceptorSecrets{ClusterKey: handshakeKey, Registration: RegistrationSecret(handshakeKey)}
)

func TestHandshake(t *testing.T) {
	key, otherKey, secrets := handshakeKey, handshakeOtherKey, handshakeSecrets
	cases := []struct {
		name      string
		kind      byte
		creds     Credentials
		secrets   AcceptorSecrets
		role      ConnRole
		acceptErr string
		dialErr   error
	}{
		{"server with the key", ConnTypeRaft, Credentials{RoleServer, key}, secrets, RoleServer, "", nil},
		{"server with the key, RPC", ConnTypeRPC, Credentials{RoleServer, key}, secrets, RoleServer, "", nil},
		{"client with the registration secret", ConnTypeRPC, Credentials{RoleClient, RegistrationSecret(key)}, secrets, RoleClient, "", nil},
		{"anonymous RPC", ConnTypeRPC, Credentials{RoleAnonymous, nil}, secrets, RoleAnonymous, "", nil},
		{"server with another key", ConnTypeRaft, Credentials{RoleServer, otherKey}, secrets, 0, "could not prove it", errHandshakeRefused},
		{"client proving the cluster key as its secret", ConnTypeRPC, Credentials{RoleClient, key}, secrets, 0, "could not prove it", errHandshakeRefused},
		{"server proving the registration secret", ConnTypeRaft, Credentials{RoleServer, RegistrationSecret(key)}, secrets, 0, "could not prove it", errHandshakeRefused},
		{"anonymous raft", ConnTypeRaft, Credentials{RoleAnonymous, nil}, secrets, 0, "opened a raft connection", errHandshakeRefused},
		{"client raft", ConnTypeRaft, Credentials{RoleClient, RegistrationSecret(key)}, secrets, 0, "opened a raft connection", errHandshakeRefused},
		{"unknown role", ConnTypeRPC, Credentials{ConnRole(9), key}, secrets, 0, "unknown role", errHandshakeRefused},
		// A rogue server that does not hold the registration secret cannot
		// pass for the cluster's: it accepts anything, and cannot prove it.
		{"rogue server", ConnTypeRPC, Credentials{RoleClient, RegistrationSecret(key)},
			AcceptorSecrets{ClusterKey: otherKey, Registration: RegistrationSecret(otherKey)}, 0, "could not prove it", errHandshakeRefused},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			accepted, dialed := runHandshake(t, tc.kind, tc.creds, tc.secrets)
			if tc.acceptErr == "" {
				must.NoError(t, accepted.err)
				must.NoError(t, dialed.err)
				must.Eq(t, tc.role, accepted.role)
				return
			}
			must.ErrorContains(t, accepted.err, tc.acceptErr)
			must.ErrorIs(t, dialed.err, tc.dialErr)
		})
	}
}

// After a proven handshake both ends talk in sealed records, each able
// to read what the other wrote; an anonymous one in the clear.
func TestHandshake_SealsWhatFollows(t *testing.T) {
	for _, creds := range []Credentials{{RoleServer, handshakeKey}, {RoleClient, RegistrationSecret(handshakeKey)}, {RoleAnonymous, nil}} {
		t.Run(creds.Role.String(), func(t *testing.T) {
			accepted, dialed := runHandshake(t, ConnTypeRPC, creds, handshakeSecrets)
			must.NoError(t, accepted.err)
			must.NoError(t, dialed.err)
			_, sealedA := accepted.conn.(*sealedConn)
			_, sealedD := dialed.conn.(*sealedConn)
			must.Eq(t, creds.Role != RoleAnonymous, sealedA)
			must.Eq(t, creds.Role != RoleAnonymous, sealedD)
			go func() { _, _ = dialed.conn.Write([]byte("ping")) }()
			got := make([]byte, 4)
			_, err := io.ReadFull(accepted.conn, got)
			must.NoError(t, err)
			must.Eq(t, "ping", string(got))
			go func() { _, _ = accepted.conn.Write([]byte("pong")) }()
			_, err = io.ReadFull(dialed.conn, got)
			must.NoError(t, err)
			must.Eq(t, "pong", string(got))
		})
	}
}

// A server that answers with a proof made without the secret is caught by
// the dialer: the proof is checked, not merely read.
func TestHandshake_DialerChecksTheProof(t *testing.T) {
	toDialer, dialed := dialOnPipe(t, ConnTypeRPC, Credentials{RoleServer, handshakeKey}, NewInstanceID())
	other := NewInstanceID()
	hello := append(append([]byte(HandshakeMagic), other[:]...), make([]byte, nonceSize)...)
	_, err := toDialer.Write(hello)
	must.NoError(t, err)
	_, err = io.ReadFull(toDialer, make([]byte, credentialsSize))
	must.NoError(t, err)
	_, err = toDialer.Write(append([]byte{VerdictOK}, make([]byte, ProofSize)...))
	must.NoError(t, err)
	must.ErrorIs(t, (<-dialed).err, errServerUnproven)
}

// A dialer that reaches a server of the previous handshake says so.
func TestHandshake_OtherVersionIsNamed(t *testing.T) {
	toDialer, dialed := dialOnPipe(t, ConnTypeRPC, Credentials{RoleServer, handshakeKey}, NewInstanceID())
	_, err := toDialer.Write([]byte(legacyHandshakeMagic))
	must.NoError(t, err)
	err = (<-dialed).err
	must.ErrorIs(t, err, errOtherVersion)
	must.True(t, RefusedCredentials(err), must.Sprint("reported as a misconfiguration, not a server down"))
	must.ErrorContains(t, err, "same Drover version")
}

// drain reads conn to its end: a pipe's writer waits for its reader.
func drain(conn net.Conn) { _, _ = io.Copy(io.Discard, conn) }

// randomize overwrites b with random bytes.
func randomize(b []byte) { _, _ = rand.Read(b) }

// The reflection of issue 21: a process dials an attacker, who hands the
// process's own challenge (from a connection the attacker opened to it)
// to the process's dialer and the dialer's answer back to the process.
// Whatever the attacker rewrites on the way (the acceptor's instance ID
// in the challenge, the dialer's in the answer), the proof the process
// made is never accepted by the process.
func TestHandshake_ProofIsNeverAcceptedByItsMaker(t *testing.T) {
	check := func(raft, claimServer, rewriteAcceptor, rewriteDialer bool) bool {
		kind, creds := ConnTypeRPC, Credentials{RoleClient, RegistrationSecret(handshakeKey)}
		if raft {
			kind = ConnTypeRaft
		}
		if claimServer {
			creds = Credentials{RoleServer, handshakeKey}
		}
		self := NewInstanceID()
		toAcceptor, accepted := acceptOnPipe(t, kind, handshakeSecrets, self)
		toDialer, dialed := dialOnPipe(t, kind, creds, self)

		hello := make([]byte, HelloSize)
		if _, err := io.ReadFull(toAcceptor, hello); err != nil {
			t.Errorf("read the challenge: %v", err)
			return false
		}
		if rewriteAcceptor {
			randomize(hello[len(HandshakeMagic) : len(HandshakeMagic)+InstanceIDSize])
		}
		if _, err := toDialer.Write(hello); err != nil {
			t.Errorf("hand the challenge over: %v", err)
			return false
		}
		answer := make([]byte, credentialsSize)
		if _, err := io.ReadFull(toDialer, answer); err != nil {
			// The dialer saw its own challenge and refused to answer.
			toAcceptor.Close()
			return !rewriteAcceptor && errors.Is((<-dialed).err, errHandshakeRefused) && (<-accepted).err != nil
		}
		if rewriteDialer {
			randomize(answer[1 : 1+InstanceIDSize])
		}
		if _, err := toAcceptor.Write(answer); err != nil {
			return (<-accepted).err != nil
		}
		go drain(toAcceptor) // the verdict
		res := <-accepted
		if res.err == nil {
			t.Logf("accepted as %s (acceptor ID rewritten %v, dialer ID rewritten %v)", res.role, rewriteAcceptor, rewriteDialer)
		}
		return res.err != nil
	}
	must.NoError(t, quick.Check(check, &quick.Config{MaxCount: 64}))
}

// A handshake recorded on one connection proves nothing on another: the
// dialer's answer replayed to the same server, and the server's proof
// replayed to the same dialer, are refused.
func TestHandshake_ProofIsNeverAcceptedOnAnotherConnection(t *testing.T) {
	check := func(raft, claimServer bool) bool {
		kind, creds := ConnTypeRPC, Credentials{RoleClient, RegistrationSecret(handshakeKey)}
		if claimServer || raft { // a client may not open raft
			creds = Credentials{RoleServer, handshakeKey}
		}
		if raft {
			kind = ConnTypeRaft
		}
		server, member := NewInstanceID(), NewInstanceID()

		// A genuine handshake, recorded by whoever is on the path.
		toAcceptor, accepted := acceptOnPipe(t, kind, handshakeSecrets, server)
		toDialer, dialed := dialOnPipe(t, kind, creds, member)
		hello := make([]byte, HelloSize)
		answer := make([]byte, credentialsSize)
		verdict := make([]byte, 1+ProofSize)
		for _, step := range []struct {
			from, to net.Conn
			buf      []byte
		}{{toAcceptor, toDialer, hello}, {toDialer, toAcceptor, answer}, {toAcceptor, toDialer, verdict}} {
			if _, err := io.ReadFull(step.from, step.buf); err != nil {
				t.Errorf("record the handshake: %v", err)
				return false
			}
			if _, err := step.to.Write(step.buf); err != nil {
				t.Errorf("record the handshake: %v", err)
				return false
			}
		}
		if (<-accepted).err != nil || (<-dialed).err != nil {
			t.Error("the genuine handshake failed")
			return false
		}

		// The answer, replayed to the same server on a new connection.
		toAcceptor, accepted = acceptOnPipe(t, kind, handshakeSecrets, server)
		if _, err := io.ReadFull(toAcceptor, make([]byte, HelloSize)); err != nil {
			return false
		}
		_, _ = toAcceptor.Write(answer)
		go drain(toAcceptor) // the verdict
		replayedAnswer := <-accepted

		// The server's proof, replayed to the same member dialing anew,
		// with the old challenge.
		toDialer, dialed = dialOnPipe(t, kind, creds, member)
		_, _ = toDialer.Write(hello)
		if _, err := io.ReadFull(toDialer, make([]byte, credentialsSize)); err != nil {
			return false
		}
		_, _ = toDialer.Write(verdict)
		replayedProof := <-dialed
		return replayedAnswer.err != nil && errors.Is(replayedProof.err, errServerUnproven)
	}
	must.NoError(t, quick.Check(check, &quick.Config{MaxCount: 32}))
}

// The two directions' proofs and keys differ, and a transcript that
// differs in any of what it names (the roles, both instance IDs, both
// nonces, the connection type) gives other proofs and keys.
func TestHandshake_DerivationCoversTheTranscript(t *testing.T) {
	base := Transcript{Kind: ConnTypeRPC, DialerRole: RoleServer, Acceptor: NewInstanceID(), Dialer: NewInstanceID()}
	randomize(base.Challenge[:])
	randomize(base.Nonce[:])
	derived, err := DeriveSession(handshakeKey, &base)
	must.NoError(t, err)
	must.NotEq(t, derived.DialerProof, derived.acceptorProof)
	must.NotEq(t, derived.dialerSends, derived.acceptorSends)

	swapped := base
	swapped.Acceptor, swapped.Dialer = base.Dialer, base.Acceptor
	changes := map[string]Transcript{"instance IDs swapped": swapped}
	for name, change := range map[string]func(*Transcript){
		"kind":        func(t *Transcript) { t.Kind = ConnTypeRaft },
		"dialer role": func(t *Transcript) { t.DialerRole = RoleClient },
		"acceptor ID": func(t *Transcript) { t.Acceptor[0] ^= 1 },
		"dialer ID":   func(t *Transcript) { t.Dialer[15] ^= 1 },
		"challenge":   func(t *Transcript) { t.Challenge[31] ^= 1 },
		"nonce":       func(t *Transcript) { t.Nonce[0] ^= 0x80 },
	} {
		tr := base
		change(&tr)
		changes[name] = tr
	}
	for name, tr := range changes {
		other, err := DeriveSession(handshakeKey, &tr)
		must.NoError(t, err)
		for _, pair := range [][2][]byte{
			{derived.DialerProof, other.DialerProof},
			{derived.acceptorProof, other.acceptorProof},
			{derived.dialerSends, other.dialerSends},
			{derived.acceptorSends, other.acceptorSends},
		} {
			must.NotEq(t, pair[0], pair[1], must.Sprint(name))
		}
	}
}

// testWait bounds how long a test waits for the other end of a pipe.
const testWait = 10 * time.Second
