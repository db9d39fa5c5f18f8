package nomad

import (
	"context"

	"github.com/drover-io/drover/acl"
)

// authTokenKey carries the caller's ACL secret in a request's context.
type authTokenKey struct{}

// WithAuthToken returns ctx carrying the ACL secret of the user a request
// is made for. A write that this server forwards to the leader takes it
// along, and the leader resolves it to the caller's identity there.
func WithAuthToken(ctx context.Context, secret string) context.Context {
	return context.WithValue(ctx, authTokenKey{}, secret)
}

func authTokenFrom(ctx context.Context) string {
	s, _ := ctx.Value(authTokenKey{}).(string)
	return s
}

// AuthRequest is embedded in every request a user's write sends to the
// leader over RPC: the leader resolves AuthToken to the caller's identity
// and checks what the write needs, whichever server the user talked to.
type AuthRequest struct {
	AuthToken string `json:",omitempty"`
}

func (r *AuthRequest) setAuthToken(secret string) { r.AuthToken = secret }

// authCarrier is a request that carries the user's secret.
type authCarrier interface{ setAuthToken(string) }

// carryAuthToken puts ctx's secret in req when req carries one.
func carryAuthToken(ctx context.Context, req any) {
	if c, ok := req.(authCarrier); ok {
		c.setAuthToken(authTokenFrom(ctx))
	}
}

// callerKey carries what the user a write is made for may do.
type callerKey struct{}

// WithCaller returns ctx carrying the identity of the user a write is made
// for: the ACL the HTTP API resolved from the request's token (the
// management ACL when ACLs are off). The server method that serves the
// write checks it, once (see authorize); nothing before it does.
func WithCaller(ctx context.Context, a *acl.ACL) context.Context {
	return context.WithValue(ctx, callerKey{}, a)
}

func callerFrom(ctx context.Context) (*acl.ACL, bool) {
	a, ok := ctx.Value(callerKey{}).(*acl.ACL)
	return a, ok && a != nil
}
