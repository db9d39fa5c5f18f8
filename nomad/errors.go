package nomad

import (
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// Errors a caller can tell apart with errors.Is, also when another server
// returned the error over RPC. They are the RPC layer's, which carries
// their kind across the hop; see package rpc for what each means.
var (
	ErrNotFound          = nomadrpc.ErrNotFound
	ErrInvalidRequest    = nomadrpc.ErrInvalidRequest
	ErrIndexConflict     = nomadrpc.ErrIndexConflict
	ErrNoLeader          = nomadrpc.ErrNoLeader
	ErrPermissionDenied  = nomadrpc.ErrPermissionDenied
	ErrTokenNotFound     = nomadrpc.ErrTokenNotFound
	ErrTokenExpired      = nomadrpc.ErrTokenExpired
	ErrNotApplied        = nomadrpc.ErrNotApplied
	ErrMayStillApply     = nomadrpc.ErrMayStillApply
	ErrLeaderUnreachable = nomadrpc.ErrLeaderUnreachable
)

// permissionDenied returns an ErrPermissionDenied error that says why.
func permissionDenied(format string, args ...any) error {
	return nomadrpc.WithKind(nomadrpc.ErrPermissionDenied, fmt.Errorf("permission denied: "+format, args...))
}

// mayStillApply marks err, which left the write's outcome unknown, as an
// ErrMayStillApply error that says so.
func mayStillApply(err error) error {
	return fmt.Errorf("%w: %w", err, nomadrpc.ErrMayStillApply)
}

// notApplied marks err, which stopped the write before it entered the
// raft log, as an ErrNotApplied error that says so.
func notApplied(err error) error {
	return fmt.Errorf("%w: %w", err, nomadrpc.ErrNotApplied)
}

// invalidf returns an ErrInvalidRequest error with the given message.
func invalidf(format string, args ...any) error {
	return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, fmt.Errorf(format, args...))
}
