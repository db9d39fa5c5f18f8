package nomad

import (
	"crypto/rand"
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// setupSecrets settles what peers prove on the RPC port without TLS: the
// configured cluster key, or a random one nobody else holds. A server that
// is to form or join a cluster with others needs the configured one, or
// TLS, where certificates say who is a server.
func (s *Server) setupSecrets() error {
	key := s.config.ClusterKey
	if len(key) == 0 {
		if s.config.TLS == nil && (s.config.BootstrapExpect > 1 || len(s.joinAddrs) > 0) {
			return errors.New("server.encrypt is required when the server is to form or join a cluster with others " +
				"(bootstrap_expect above 1, or server_join): servers prove they hold the same key before they talk raft; " +
				"make one with 'drover operator keygen' and give it to every server")
		}
		key = make([]byte, nomadrpc.ClusterKeySize)
		if _, err := rand.Read(key); err != nil {
			return fmt.Errorf("generate cluster key: %w", err)
		}
		if s.config.TLS == nil {
			s.logger.Info("no encrypt key configured: this server stays a cluster of one, whose nodes are its own agent's client's")
		}
	} else if err := nomadrpc.CheckClusterKey(key); err != nil {
		return fmt.Errorf("server.encrypt: %w", err)
	}
	s.secrets = nomadrpc.AcceptorSecrets{ClusterKey: key, Registration: nomadrpc.RegistrationSecret(key)}
	return nil
}
