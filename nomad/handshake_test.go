package nomad

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"testing/quick"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

// acceptResult and dialResult are what one side of a handshake ended
// with.
type acceptResult struct {
	conn net.Conn
	role connRole
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
func acceptOnPipe(t *testing.T, kind byte, secrets acceptorSecrets, self instanceID) (net.Conn, <-chan acceptResult) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	done := make(chan acceptResult, 1)
	go func() {
		conn, role, err := acceptHandshake(a, kind, secrets, self, time.Now().Add(leaderWait))
		if err != nil {
			a.Close()
		}
		done <- acceptResult{conn, role, err}
	}()
	return b, done
}

// dialOnPipe runs the dialing side of a handshake for a connection of kind
// as process self, as acceptOnPipe does the accepting side.
func dialOnPipe(t *testing.T, kind byte, creds credentials, self instanceID) (net.Conn, <-chan dialResult) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	done := make(chan dialResult, 1)
	go func() {
		conn, err := dialHandshake(a, kind, creds, self, time.Now().Add(leaderWait))
		if err != nil {
			a.Close()
		}
		done <- dialResult{conn, err}
	}()
	return b, done
}

// runHandshake runs both sides of a handshake for a connection of kind,
// each as a process of its own, over a pipe.
func runHandshake(t *testing.T, kind byte, creds credentials, secrets acceptorSecrets) (acceptResult, dialResult) {
	toAcceptor, accepted := acceptOnPipe(t, kind, secrets, newInstanceID())
	toDialer, dialed := dialOnPipe(t, kind, creds, newInstanceID())
	go func() { _, _ = io.Copy(toAcceptor, toDialer); toAcceptor.Close() }()
	go func() { _, _ = io.Copy(toDialer, toAcceptor); toDialer.Close() }()
	return <-accepted, <-dialed
}

var (
	handshakeKey      = []byte("0123456789abcdef0123456789abcdef")
	handshakeOtherKey = []byte("fedcba9876543210fedcba9876543210")
	handshakeSecrets  = acceptorSecrets{clusterKey: handshakeKey, registration: RegistrationSecret(handshakeKey)}
)

func TestHandshake(t *testing.T) {
	key, otherKey, secrets := handshakeKey, handshakeOtherKey, handshakeSecrets
	cases := []struct {
		name      string
		kind      byte
		creds     credentials
		secrets   acceptorSecrets
		role      connRole
		acceptErr string
		dialErr   error
	}{
		{"server with the key", connTypeRaft, credentials{roleServer, key}, secrets, roleServer, "", nil},
		{"server with the key, RPC", connTypeRPC, credentials{roleServer, key}, secrets, roleServer, "", nil},
		{"client with the registration secret", connTypeRPC, credentials{roleClient, RegistrationSecret(key)}, secrets, roleClient, "", nil},
		{"anonymous RPC", connTypeRPC, credentials{roleAnonymous, nil}, secrets, roleAnonymous, "", nil},
		{"server with another key", connTypeRaft, credentials{roleServer, otherKey}, secrets, 0, "could not prove it", errHandshakeRefused},
		{"client proving the cluster key as its secret", connTypeRPC, credentials{roleClient, key}, secrets, 0, "could not prove it", errHandshakeRefused},
		{"server proving the registration secret", connTypeRaft, credentials{roleServer, RegistrationSecret(key)}, secrets, 0, "could not prove it", errHandshakeRefused},
		{"anonymous raft", connTypeRaft, credentials{roleAnonymous, nil}, secrets, 0, "opened a raft connection", errHandshakeRefused},
		{"client raft", connTypeRaft, credentials{roleClient, RegistrationSecret(key)}, secrets, 0, "opened a raft connection", errHandshakeRefused},
		{"unknown role", connTypeRPC, credentials{connRole(9), key}, secrets, 0, "unknown role", errHandshakeRefused},
		// A rogue server that does not hold the registration secret cannot
		// pass for the cluster's: it accepts anything, and cannot prove it.
		{"rogue server", connTypeRPC, credentials{roleClient, RegistrationSecret(key)},
			acceptorSecrets{clusterKey: otherKey, registration: RegistrationSecret(otherKey)}, 0, "could not prove it", errHandshakeRefused},
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
	for _, creds := range []credentials{{roleServer, handshakeKey}, {roleClient, RegistrationSecret(handshakeKey)}, {roleAnonymous, nil}} {
		t.Run(creds.role.String(), func(t *testing.T) {
			accepted, dialed := runHandshake(t, connTypeRPC, creds, handshakeSecrets)
			must.NoError(t, accepted.err)
			must.NoError(t, dialed.err)
			_, sealedA := accepted.conn.(*sealedConn)
			_, sealedD := dialed.conn.(*sealedConn)
			must.Eq(t, creds.role != roleAnonymous, sealedA)
			must.Eq(t, creds.role != roleAnonymous, sealedD)
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
	toDialer, dialed := dialOnPipe(t, connTypeRPC, credentials{roleServer, handshakeKey}, newInstanceID())
	other := newInstanceID()
	hello := append(append([]byte(handshakeMagic), other[:]...), make([]byte, nonceSize)...)
	_, err := toDialer.Write(hello)
	must.NoError(t, err)
	_, err = io.ReadFull(toDialer, make([]byte, credentialsSize))
	must.NoError(t, err)
	_, err = toDialer.Write(append([]byte{verdictOK}, make([]byte, proofSize)...))
	must.NoError(t, err)
	must.ErrorIs(t, (<-dialed).err, errServerUnproven)
}

// A dialer that reaches a server of the previous handshake says so.
func TestHandshake_OtherVersionIsNamed(t *testing.T) {
	toDialer, dialed := dialOnPipe(t, connTypeRPC, credentials{roleServer, handshakeKey}, newInstanceID())
	_, err := toDialer.Write([]byte(legacyHandshakeMagic))
	must.NoError(t, err)
	err = (<-dialed).err
	must.ErrorIs(t, err, errOtherVersion)
	must.True(t, refusedCredentials(err), must.Sprint("reported as a misconfiguration, not a server down"))
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
		kind, creds := connTypeRPC, credentials{roleClient, RegistrationSecret(handshakeKey)}
		if raft {
			kind = connTypeRaft
		}
		if claimServer {
			creds = credentials{roleServer, handshakeKey}
		}
		self := newInstanceID()
		toAcceptor, accepted := acceptOnPipe(t, kind, handshakeSecrets, self)
		toDialer, dialed := dialOnPipe(t, kind, creds, self)

		hello := make([]byte, helloSize)
		if _, err := io.ReadFull(toAcceptor, hello); err != nil {
			t.Errorf("read the challenge: %v", err)
			return false
		}
		if rewriteAcceptor {
			randomize(hello[len(handshakeMagic) : len(handshakeMagic)+instanceIDSize])
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
			randomize(answer[1 : 1+instanceIDSize])
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
		kind, creds := connTypeRPC, credentials{roleClient, RegistrationSecret(handshakeKey)}
		if claimServer || raft { // a client may not open raft
			creds = credentials{roleServer, handshakeKey}
		}
		if raft {
			kind = connTypeRaft
		}
		server, member := newInstanceID(), newInstanceID()

		// A genuine handshake, recorded by whoever is on the path.
		toAcceptor, accepted := acceptOnPipe(t, kind, handshakeSecrets, server)
		toDialer, dialed := dialOnPipe(t, kind, creds, member)
		hello := make([]byte, helloSize)
		answer := make([]byte, credentialsSize)
		verdict := make([]byte, 1+proofSize)
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
		if _, err := io.ReadFull(toAcceptor, make([]byte, helloSize)); err != nil {
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
	base := transcript{kind: connTypeRPC, dialerRole: roleServer, acceptor: newInstanceID(), dialer: newInstanceID()}
	randomize(base.challenge[:])
	randomize(base.nonce[:])
	derived, err := deriveSession(handshakeKey, &base)
	must.NoError(t, err)
	must.NotEq(t, derived.dialerProof, derived.acceptorProof)
	must.NotEq(t, derived.dialerSends, derived.acceptorSends)

	swapped := base
	swapped.acceptor, swapped.dialer = base.dialer, base.acceptor
	changes := map[string]transcript{"instance IDs swapped": swapped}
	for name, change := range map[string]func(*transcript){
		"kind":        func(t *transcript) { t.kind = connTypeRaft },
		"dialer role": func(t *transcript) { t.dialerRole = roleClient },
		"acceptor ID": func(t *transcript) { t.acceptor[0] ^= 1 },
		"dialer ID":   func(t *transcript) { t.dialer[15] ^= 1 },
		"challenge":   func(t *transcript) { t.challenge[31] ^= 1 },
		"nonce":       func(t *transcript) { t.nonce[0] ^= 0x80 },
	} {
		tr := base
		change(&tr)
		changes[name] = tr
	}
	for name, tr := range changes {
		other, err := deriveSession(handshakeKey, &tr)
		must.NoError(t, err)
		for _, pair := range [][2][]byte{
			{derived.dialerProof, other.dialerProof},
			{derived.acceptorProof, other.acceptorProof},
			{derived.dialerSends, other.dialerSends},
			{derived.acceptorSends, other.acceptorSends},
		} {
			must.NotEq(t, pair[0], pair[1], must.Sprint(name))
		}
	}
}

func TestServer_NeedsAKeyToJoinOthers(t *testing.T) {
	for name, change := range map[string]func(*Config){
		"bootstrap_expect": func(c *Config) { c.BootstrapExpect = 3 },
		"server_join":      func(c *Config) { c.ServerJoin = []string{"127.0.0.1:1"} },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, "keyless")
			cfg.ClusterKey = nil
			change(cfg)
			_, err := NewServer(cfg)
			must.ErrorContains(t, err, "server.encrypt is required")
		})
	}
	cfg := testConfig(t, "bad-key")
	cfg.ClusterKey = []byte("short")
	_, err := NewServer(cfg)
	must.ErrorContains(t, err, "a key is 16, 24 or 32 bytes")
}

// Servers with different keys never form a cluster: each bootstraps
// nothing, since neither can reach the other as a server.
func TestServer_DifferentKeysFormNoCluster(t *testing.T) {
	a := testConfig(t, "a")
	a.BootstrapExpect = 2
	sa := startServer(t, a)
	b := testConfig(t, "b")
	b.BootstrapExpect = 2
	b.ClusterKey = []byte("another cluster key, of 32 bytes")
	b.ServerJoin = []string{sa.RPCAdvertise()}
	told := countLogs(b, "server refused this server's credentials")
	sb := startServer(t, b)
	refused := countLogs(a, "refused RPC connection")
	waitfor.True(t, "a to refuse several rounds of b's connections", func() bool { return refused.n.Load() >= 3 })
	must.Positive(t, told.n.Load(), must.Sprint("b says why it cannot join"))
	must.Len(t, 1, sa.Members(), must.Sprint("a never hears of b"))
	must.False(t, sa.hasRaftState())
	must.False(t, sb.hasRaftState())
}

func TestRPCMux_ConnectionsPerIPAreCapped(t *testing.T) {
	cfg := testConfig(t, "capped")
	cfg.RPCMaxConnsPerClient = 2
	s := startServer(t, cfg)
	waitForLeader(t, s)

	first, _ := forgedConn(t, s.RPCAdvertise(), connTypeRPC, roleAnonymous, nil)
	forgedConn(t, s.RPCAdvertise(), connTypeRPC, roleAnonymous, nil)
	third, err := net.Dial("tcp", s.RPCAdvertise())
	must.NoError(t, err)
	defer third.Close()
	readUntilClosed(t, third)

	// Closing one makes room again.
	first.Close()
	waitfor.NoError(t, "room for a connection", func() error {
		conn, err := net.Dial("tcp", s.RPCAdvertise())
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.Write([]byte{connTypeRPC}); err != nil {
			return err
		}
		if err := conn.SetReadDeadline(time.Now().Add(time.Second)); err != nil {
			return err
		}
		buf := make([]byte, len(handshakeMagic))
		if _, err := conn.Read(buf); err != nil {
			return fmt.Errorf("no challenge: %w", err)
		}
		if string(buf) != handshakeMagic {
			return errors.New("no challenge")
		}
		return nil
	})
}

func TestRPCMux_SilentPeerIsDropped(t *testing.T) {
	cfg := testConfig(t, "impatient")
	cfg.RPCHandshakeTimeout = 200 * time.Millisecond
	s := startServer(t, cfg)
	conn, err := net.Dial("tcp", s.RPCAdvertise())
	must.NoError(t, err)
	defer conn.Close()
	// It says what it carries and then nothing: the handshake times out.
	_, err = conn.Write([]byte{connTypeRPC})
	must.NoError(t, err)
	readUntilClosed(t, conn)
}
