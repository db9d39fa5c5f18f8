package config

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// validateSecrets checks the cluster key and the registration secret, and
// that a server meant to join others has what they will ask it to prove.
func (c *Config) validateSecrets() error {
	var errs []error
	if c.Server.EncryptKey != "" {
		if _, err := nomadrpc.ParseClusterKey(c.Server.EncryptKey); err != nil {
			errs = append(errs, fmt.Errorf("server.encrypt: %w", err))
		}
	}
	if c.Client.RegistrationSecret != "" {
		if _, err := nomadrpc.ParseRegistrationSecret(c.Client.RegistrationSecret); err != nil {
			errs = append(errs, fmt.Errorf("client.registration_secret: %w", err))
		}
	}
	joins := c.Server.BootstrapExpect > 1 || len(c.Server.RetryJoin) > 0 || len(c.Server.StartJoin) > 0
	if c.Server.Enabled && joins && c.Server.EncryptKey == "" && !c.TLS.RPC {
		errs = append(errs, errors.New("server.encrypt (or tls.rpc) is required for a server that forms or joins a cluster with others "+
			"(bootstrap_expect above 1, or server_join): make a key with 'drover operator keygen' and give every server the same"))
	}
	return errors.Join(errs...)
}

// ClusterKey is the decoded server.encrypt; nil when unset. Validate has
// checked it.
func (c *Config) ClusterKey() []byte {
	if c.Server.EncryptKey == "" {
		return nil
	}
	key, _ := nomadrpc.ParseClusterKey(c.Server.EncryptKey)
	return key
}

// RegistrationSecret is the decoded client.registration_secret; nil when
// unset. Validate has checked it.
func (c *Config) RegistrationSecret() []byte {
	if c.Client.RegistrationSecret == "" {
		return nil
	}
	secret, _ := nomadrpc.ParseRegistrationSecret(c.Client.RegistrationSecret)
	return secret
}
