package rpc

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/rpc"
	"strings"
	"syscall"

	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/state"
)

// Errors a caller can tell apart with errors.Is, also when the error was
// returned by another server over RPC.
var (
	// ErrNotFound: the job, allocation, node or evaluation does not exist.
	// It is the state store's sentinel, so store errors match it too.
	ErrNotFound = state.ErrNotFound

	// ErrInvalidRequest: the request fails validation.
	ErrInvalidRequest = errors.New("invalid request")

	// ErrIndexConflict: an index-enforcing write found a different index.
	ErrIndexConflict = errors.New("index conflict")

	// ErrNoLeader: the cluster has no leader to take the write.
	ErrNoLeader = errors.New("no cluster leader")

	// ErrPermissionDenied: the caller did not prove what the request
	// needs (a member's credentials, an ACL token's capability); nothing
	// changed. (The HTTP API says "Permission denied", as Nomad's.)
	ErrPermissionDenied = errors.New("permission denied")

	// ErrTokenNotFound: the request carries a secret no token has.
	ErrTokenNotFound = errors.New("ACL token not found")

	// ErrTokenExpired: the request's token is past its expiration time.
	ErrTokenExpired = errors.New("ACL token expired")

	// ErrNotApplied: the write's deadline passed before the leader put it
	// in the raft log, and it never will: nothing changed, and the write
	// may be sent again.
	ErrNotApplied = errors.New("the write was not applied")

	// ErrMayStillApply: the write reached the leader, or may have, but no
	// answer came back in time (the leader froze or lost its leadership,
	// the connection broke, the deadline passed while it was being
	// committed). It may have been applied, or may still be.
	ErrMayStillApply = errors.New("the write may still be applied")

	// ErrLeaderUnreachable: raft names a leader, but this server has not
	// been able to open a connection to it for a while (see
	// Config.LeaderUnreachableAfter). Nothing was sent; another server
	// may get through.
	ErrLeaderUnreachable = errors.New("the leader is unreachable from this server")

	// ErrNotLeader: a forwarded request reached a server that is no longer
	// the leader; the forwarding server looks for the leader again.
	ErrNotLeader = errors.New("not the leader")
)

// errorCodes names the sentinels on the wire, in order of precedence for an
// error that wraps more than one.
var errorCodes = []struct {
	code     string
	sentinel error
}{
	{"not_leader", ErrNotLeader},
	// Whatever else went wrong, that the write may have been applied is
	// what its caller must know.
	{"may_still_apply", ErrMayStillApply},
	{"not_found", ErrNotFound},
	{"invalid_request", ErrInvalidRequest},
	{"index_conflict", ErrIndexConflict},
	{"no_leader", ErrNoLeader},
	{"permission_denied", ErrPermissionDenied},
	{"token_not_found", ErrTokenNotFound},
	{"token_expired", ErrTokenExpired},
	// After no_leader, which a client agent looks for to try another
	// server: a write that found no leader was not applied either.
	{"leader_unreachable", ErrLeaderUnreachable},
	{"not_applied", ErrNotApplied},
	// The leader lost its leadership while the write was being
	// committed: it may or may not have been applied. (raftApply marks
	// it ErrMayStillApply too.)
	{"leadership_lost", raft.ErrLeadershipLost},
}

// sentinelFor returns the sentinel of a wire code, nil if unknown.
func sentinelFor(code string) error {
	for _, c := range errorCodes {
		if c.code == code {
			return c.sentinel
		}
	}
	return nil
}

// rpcErrorPrefix marks an error string that carries a code. net/rpc carries
// only an error's text, so the code travels inside it.
const rpcErrorPrefix = "drover-rpc-error:"

// wireError is an error's code and message as sent over RPC.
type wireError struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// EncodeError turns an endpoint's error into the error net/rpc sends,
// keeping which sentinel it wraps.
func EncodeError(err error) error {
	if err == nil {
		return nil
	}
	w := wireError{Message: err.Error()}
	for _, c := range errorCodes {
		if errors.Is(err, c.sentinel) {
			w.Code = c.code
			break
		}
	}
	data, jerr := json.Marshal(w)
	if jerr != nil {
		return err
	}
	return errors.New(rpcErrorPrefix + string(data))
}

// RemoteError is an error returned by another server. It keeps the remote
// message and unwraps to the sentinel the remote error wrapped, if any.
type RemoteError struct {
	Message  string
	Sentinel error
}

func (e *RemoteError) Error() string { return e.Message }

func (e *RemoteError) Unwrap() error { return e.Sentinel }

// DecodeError turns what an RPC call returned back into an error that
// satisfies errors.Is for the sentinel the remote error wrapped. Transport
// errors pass through unchanged.
func DecodeError(err error) error {
	var se rpc.ServerError
	if !errors.As(err, &se) {
		return err
	}
	text := string(se)
	payload, ok := strings.CutPrefix(text, rpcErrorPrefix)
	if !ok {
		return &RemoteError{Message: text}
	}
	var w wireError
	if jerr := json.Unmarshal([]byte(payload), &w); jerr != nil {
		return &RemoteError{Message: text}
	}
	return &RemoteError{Message: w.Message, Sentinel: sentinelFor(w.Code)}
}

// kindError marks an error as one of the sentinels above without adding the
// sentinel's text to its message.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string { return e.err.Error() }

func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// WithKind marks err as being of kind, one of the sentinels above.
func WithKind(kind, err error) error {
	return &kindError{kind: kind, err: err}
}

// connectionLost reports whether err is the connection to the receiver
// breaking, not an answer from it.
func connectionLost(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, rpc.ErrShutdown) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}
