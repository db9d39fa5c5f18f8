package nomad

import "context"

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
