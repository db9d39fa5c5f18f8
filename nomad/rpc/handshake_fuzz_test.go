package rpc

import (
	"bytes"
	"testing"
	"time"
)

// FuzzHandshake plays the peer of either side of a handshake with
// arbitrary bytes. Neither side may crash, and neither may take bytes it
// did not see the secret behind for a proof: the acceptor never grants a
// role, nor raft, and the dialer never finishes a proven handshake.
func FuzzHandshake(f *testing.F) {
	self, other := NewInstanceID(), NewInstanceID()
	anonymous := append(append([]byte{byte(RoleAnonymous)}, other[:]...), make([]byte, nonceSize+ProofSize)...)
	claimServer := bytes.Clone(anonymous)
	claimServer[0] = byte(RoleServer)
	hello := append(append([]byte(HandshakeMagic), other[:]...), make([]byte, nonceSize)...)
	reflected := append(append([]byte(HandshakeMagic), self[:]...), make([]byte, nonceSize)...)
	for _, seed := range [][]byte{
		nil,
		anonymous,
		claimServer,
		anonymous[:20],
		append(bytes.Clone(hello), VerdictOK),
		append(append(bytes.Clone(hello), VerdictOK), make([]byte, ProofSize)...),
		append(bytes.Clone(hello), verdictReflected),
		reflected,
		[]byte(legacyHandshakeMagic + "0123456789abcdef0123456789abcdef"),
		[]byte(tlsRequiredMagic),
	} {
		for role := range byte(4) {
			f.Add(false, role, seed)
			f.Add(true, role, seed)
		}
	}
	f.Fuzz(func(t *testing.T, raft bool, role byte, peer []byte) {
		kind := ConnTypeRPC
		if raft {
			kind = ConnTypeRaft
		}
		_, got, err := acceptHandshake(&bytesConn{r: bytes.NewReader(peer)}, kind, handshakeSecrets, self, time.Time{})
		if err == nil && (got != RoleAnonymous || raft) {
			t.Fatalf("the acceptor let in a %s peer on a connection of type %d", got, kind)
		}

		creds := Credentials{Role: ConnRole(role % 3)}
		switch creds.Role {
		case RoleServer:
			creds.Secret = handshakeKey
		case RoleClient:
			creds.Secret = RegistrationSecret(handshakeKey)
		}
		conn, err := DialHandshake(&bytesConn{r: bytes.NewReader(peer)}, kind, creds, self, time.Time{})
		if err == nil && creds.Role != RoleAnonymous {
			t.Fatalf("the dialer took a server that proved nothing: %T", conn)
		}
	})
}
