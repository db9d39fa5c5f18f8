package agent

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// fakeServers answers ACL.ResolveToken from what the test sets, counting
// the calls.
type fakeServers struct {
	calls  int
	answer *nomad.ACLResolveTokenResponse
	err    error
}

func (f *fakeServers) ask(_ context.Context, _ string) (*nomad.ACLResolveTokenResponse, error) {
	f.calls++
	return f.answer, f.err
}

func TestRemoteResolver_cachesForTheShorterTTL(t *testing.T) {
	servers := &fakeServers{answer: &nomad.ACLResolveTokenResponse{
		Token:    &structs.ACLToken{AccessorID: "a", SecretID: "s", Type: structs.ACLTokenTypeClient, Policies: []string{"p"}},
		Policies: []*structs.ACLPolicy{{Name: "p", Rules: `node { policy = "read" }`}},
	}}
	now := time.Unix(1000, 0)
	r := &remoteResolver{ask: servers.ask, ttl: min(30*time.Second, 10*time.Second), now: func() time.Time { return now }}

	a, token, err := r.resolve(t.Context(), "s")
	must.NoError(t, err)
	must.True(t, a.AllowNodeRead())
	must.False(t, a.AllowNodeWrite())
	must.Eq(t, "a", token.AccessorID)
	now = now.Add(9 * time.Second)
	_, _, err = r.resolve(t.Context(), "s")
	must.NoError(t, err)
	must.Eq(t, 1, servers.calls, must.Sprint("a second lookup within the TTL asks again"))

	// Past the TTL the servers' answer wins: the policy changed.
	servers.answer.Policies[0].Rules = `node { policy = "write" }`
	now = now.Add(2 * time.Second)
	a, _, err = r.resolve(t.Context(), "s")
	must.NoError(t, err)
	must.Eq(t, 2, servers.calls)
	must.True(t, a.AllowNodeWrite())
}

func TestRemoteResolver_errorsAndExpiryAreNotCached(t *testing.T) {
	servers := &fakeServers{err: nomad.ErrTokenNotFound}
	now := time.Unix(1000, 0)
	r := &remoteResolver{ask: servers.ask, ttl: time.Minute, now: func() time.Time { return now }}
	_, _, err := r.resolve(t.Context(), "gone")
	must.True(t, errors.Is(err, nomad.ErrTokenNotFound))
	_, _, err = r.resolve(t.Context(), "gone")
	must.Error(t, err)
	must.Eq(t, 2, servers.calls)

	exp := now.Add(time.Second)
	servers.err = nil
	servers.answer = &nomad.ACLResolveTokenResponse{Token: &structs.ACLToken{
		AccessorID: "m", SecretID: "x", Type: structs.ACLTokenTypeManagement, ExpirationTime: &exp,
	}}
	a, _, err := r.resolve(t.Context(), "x")
	must.NoError(t, err)
	must.Eq(t, acl.Management(), a)
	now = exp
	servers.err = nomad.ErrTokenExpired
	_, _, err = r.resolve(t.Context(), "x")
	must.True(t, errors.Is(err, nomad.ErrTokenExpired), must.Sprint("an expired token is not served from the cache"))
}
