package auth

import (
	"context"

	"github.com/drover-io/drover/acl"
)

// callerKey carries what the user a write is made for may do.
type callerKey struct{}

// WithCaller returns ctx carrying the identity of the user a write is made
// for: the ACL the HTTP API resolved from the request's token (the
// management ACL when ACLs are off).
func WithCaller(ctx context.Context, a *acl.ACL) context.Context {
	return context.WithValue(ctx, callerKey{}, a)
}

// Caller is the identity ctx carries; false when none was handed in.
func Caller(ctx context.Context) (*acl.ACL, bool) {
	a, ok := ctx.Value(callerKey{}).(*acl.ACL)
	return a, ok && a != nil
}
