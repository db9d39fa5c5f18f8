package nomad

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ResolveToken returns what the holder of secret may do, and the token
// (nil for a request without one, and when ACLs are disabled). Without
// ACLs everything is allowed. An empty secret is the anonymous caller,
// granted the policy named "anonymous" if there is one, else nothing. A
// secret that no token has is ErrTokenNotFound, an expired token
// ErrTokenExpired. A workload identity (a JWT the keyring signed) is the
// ACL of its workload (ResolveWorkloadIdentity), with no token. The secret
// never appears in an error.
func (s *Server) ResolveToken(ctx context.Context, secret string) (*acl.ACL, *structs.ACLToken, error) {
	if !s.config.ACLEnabled {
		return acl.Management(), nil, nil
	}
	if secret == "" {
		a, err := s.aclCache.compile(s.State(), []string{structs.AnonymousPolicyName})
		return a, nil, err
	}
	if structs.LooksLikeJWT(secret) {
		a, err := s.ResolveWorkloadIdentity(ctx, secret)
		return a, nil, err
	}
	token, err := s.lookupToken(ctx, secret)
	if err != nil {
		return nil, nil, err
	}
	if token.IsManagement() {
		return acl.Management(), token, nil
	}
	a, err := s.aclCache.compile(s.State(), token.Policies)
	return a, token, err
}

// lookupToken finds the usable token of secret. A token this server does
// not hold may have just been written through another server (a token
// created, or the bootstrap, answered by the leader a moment ago): before
// saying it does not exist, the server catches up with the cluster, as a
// read that is not stale does, and looks again.
func (s *Server) lookupToken(ctx context.Context, secret string) (*structs.ACLToken, error) {
	token, err := s.State().ACLTokenBySecretID(nil, secret)
	if err != nil {
		return nil, err
	}
	if token == nil {
		if err := s.catchUpForRead(ctx); err != nil {
			return nil, fmt.Errorf("%w (and this server could not catch up with the cluster to be sure: %v)", ErrTokenNotFound, err)
		}
		if token, err = s.State().ACLTokenBySecretID(nil, secret); err != nil {
			return nil, err
		}
	}
	if err := usableToken(token, time.Now()); err != nil {
		return nil, err
	}
	return token, nil
}

// usableToken checks that a looked-up token exists and has not expired.
func usableToken(token *structs.ACLToken, now time.Time) error {
	if token == nil {
		return ErrTokenNotFound
	}
	if token.IsExpired(now) {
		return fmt.Errorf("%w: %s expired at %s", ErrTokenExpired, token.AccessorID, token.ExpirationTime.UTC().Format(time.RFC3339))
	}
	return nil
}

// ACLFromPolicies merges stored policies into an ACL. A policy whose rules
// no longer parse (written by a newer version, say) grants nothing.
func ACLFromPolicies(policies []*structs.ACLPolicy) *acl.ACL {
	parsed := make([]*acl.Policy, 0, len(policies))
	for _, p := range policies {
		if p == nil {
			continue
		}
		if rules, err := acl.Parse(p.Rules); err == nil {
			parsed = append(parsed, rules)
		}
	}
	return acl.New(parsed...)
}

// aclCacheSize bounds the compiled ACLs kept: one per distinct set of
// policy versions in use, far fewer than tokens.
const aclCacheSize = 512

// aclCache keeps the ACLs compiled from sets of policies, keyed by their
// names, modify indexes and rules, so that a request does not parse its token's
// policies again. A policy write changes its modify index, and with it
// the key: nothing is ever stale, only unused.
type aclCache struct {
	mu       sync.Mutex
	compiled map[string]*acl.ACL
}

// compile returns the ACL of the named policies as st holds them; names
// of policies that do not exist grant nothing.
func (c *aclCache) compile(st *state.StateStore, names []string) (*acl.ACL, error) {
	policies := make([]*structs.ACLPolicy, 0, len(names))
	var key strings.Builder
	for _, name := range slices.Sorted(slices.Values(names)) {
		p, err := st.ACLPolicyByName(nil, name)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		policies = append(policies, p)
		// The hash of the rules keeps a key from meaning other rules
		// after a restore from another cluster's snapshot.
		h := fnv.New64a()
		h.Write([]byte(p.Rules))
		fmt.Fprintf(&key, "%s@%d#%x,", p.Name, p.ModifyIndex, h.Sum64())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.compiled[key.String()]; ok {
		return a, nil
	}
	a := ACLFromPolicies(policies)
	if c.compiled == nil || len(c.compiled) >= aclCacheSize {
		c.compiled = make(map[string]*acl.ACL)
	}
	c.compiled[key.String()] = a
	return a, nil
}
