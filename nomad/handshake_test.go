package nomad

import (
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

// runHandshake runs both sides of a handshake for a connection of kind
// over a pipe.
func runHandshake(kind byte, creds credentials, secrets acceptorSecrets) (connRole, error, error) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	deadline := time.Now().Add(leaderWait)
	type result struct {
		role connRole
		err  error
	}
	done := make(chan result, 1)
	go func() {
		role, err := acceptHandshake(a, kind, secrets, deadline)
		if err != nil {
			a.Close() // as the mux does
		}
		done <- result{role, err}
	}()
	dialErr := dialHandshake(b, kind, creds, deadline)
	if dialErr != nil {
		b.Close()
	}
	r := <-done
	return r.role, r.err, dialErr
}

func TestHandshake(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	secrets := acceptorSecrets{clusterKey: key, registration: RegistrationSecret(key)}
	otherKey := []byte("fedcba9876543210fedcba9876543210")
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
			role, acceptErr, dialErr := runHandshake(tc.kind, tc.creds, tc.secrets)
			if tc.acceptErr == "" {
				must.NoError(t, acceptErr)
				must.NoError(t, dialErr)
				must.Eq(t, tc.role, role)
				return
			}
			must.ErrorContains(t, acceptErr, tc.acceptErr)
			must.ErrorIs(t, dialErr, tc.dialErr)
		})
	}
}

// A server that answers with a proof made without the secret is caught by
// the dialer: the proof is checked, not merely read.
func TestHandshake_DialerChecksTheProof(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		hello := append([]byte(handshakeMagic), make([]byte, nonceSize)...)
		a.Write(hello)
		buf := make([]byte, 1+nonceSize+macSize)
		if _, err := a.Read(buf); err != nil {
			return
		}
		a.Write(append([]byte{verdictOK}, make([]byte, macSize)...))
	}()
	err := dialHandshake(b, connTypeRPC, credentials{roleServer, key}, time.Now().Add(leaderWait))
	must.ErrorIs(t, err, errServerUnproven)
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
