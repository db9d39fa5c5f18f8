package nomad

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
	self, other := newInstanceID(), newInstanceID()
	anonymous := append(append([]byte{byte(roleAnonymous)}, other[:]...), make([]byte, nonceSize+proofSize)...)
	claimServer := bytes.Clone(anonymous)
	claimServer[0] = byte(roleServer)
	hello := append(append([]byte(handshakeMagic), other[:]...), make([]byte, nonceSize)...)
	reflected := append(append([]byte(handshakeMagic), self[:]...), make([]byte, nonceSize)...)
	for _, seed := range [][]byte{
		nil,
		anonymous,
		claimServer,
		anonymous[:20],
		append(bytes.Clone(hello), verdictOK),
		append(append(bytes.Clone(hello), verdictOK), make([]byte, proofSize)...),
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
		kind := connTypeRPC
		if raft {
			kind = connTypeRaft
		}
		_, got, err := acceptHandshake(&bytesConn{r: bytes.NewReader(peer)}, kind, handshakeSecrets, self, time.Time{})
		if err == nil && (got != roleAnonymous || raft) {
			t.Fatalf("the acceptor let in a %s peer on a connection of type %d", got, kind)
		}

		creds := credentials{role: connRole(role % 3)}
		switch creds.role {
		case roleServer:
			creds.secret = handshakeKey
		case roleClient:
			creds.secret = RegistrationSecret(handshakeKey)
		}
		conn, err := dialHandshake(&bytesConn{r: bytes.NewReader(peer)}, kind, creds, self, time.Time{})
		if err == nil && creds.role != roleAnonymous {
			t.Fatalf("the dialer took a server that proved nothing: %T", conn)
		}
	})
}
