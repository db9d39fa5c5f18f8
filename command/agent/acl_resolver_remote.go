package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// remoteCacheSize bounds the tokens a client agent remembers.
const remoteCacheSize = 4096

// remoteResolver resolves tokens for an agent without a server of its own
// by asking the servers, and keeps each answer for the shorter of
// acl.token_ttl and acl.policy_ttl: a token or policy change reaches the
// agent within that time. Failed lookups are not kept.
type remoteResolver struct {
	ask func(ctx context.Context, secret string) (*nomad.ACLResolveTokenResponse, error)
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]remoteEntry
}

type remoteEntry struct {
	acl     *acl.ACL
	token   *structs.ACLToken
	fetched time.Time
}

// newRemoteResolver asks the servers through conn, as the node that
// node names (the servers answer a registered node only).
func newRemoteResolver(conn *rpcServerConn, cfg config.ACLConfig, node func() client.NodeIdentity) *remoteResolver {
	return &remoteResolver{
		ask: func(ctx context.Context, secret string) (*nomad.ACLResolveTokenResponse, error) {
			ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout)
			defer cancel()
			id := node()
			var resp nomad.ACLResolveTokenResponse
			err := conn.call(ctx, "Client.ResolveToken", &nomad.ACLResolveTokenRequest{NodeID: id.ID, SecretID: id.SecretID, Token: secret}, &resp)
			return &resp, err
		},
		ttl: min(cfg.TokenTTL, cfg.PolicyTTL),
		now: time.Now,
	}
}

func (r *remoteResolver) resolve(ctx context.Context, secret string) (*acl.ACL, *structs.ACLToken, error) {
	now := r.now()
	r.mu.Lock()
	e, ok := r.entries[secret]
	r.mu.Unlock()
	if ok && now.Sub(e.fetched) < r.ttl && (e.token == nil || !e.token.IsExpired(now)) {
		return e.acl, e.token, nil
	}
	resp, err := r.ask(ctx, secret)
	if err != nil {
		return nil, nil, fmt.Errorf("resolve ACL token: %w", err)
	}
	e = remoteEntry{token: resp.Token, fetched: now}
	if resp.Token != nil && resp.Token.IsManagement() {
		e.acl = acl.Management()
	} else {
		e.acl = nomad.ACLFromPolicies(resp.Policies)
	}
	r.mu.Lock()
	if r.entries == nil || len(r.entries) >= remoteCacheSize {
		r.entries = make(map[string]remoteEntry)
	}
	r.entries[secret] = e
	r.mu.Unlock()
	return e.acl, e.token, nil
}
