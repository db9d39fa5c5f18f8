package nomad

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"syscall"
	"time"

	"github.com/hashicorp/raft"
)

// forwardRetryWait is the pause between attempts to find the leader.
const forwardRetryWait = 100 * time.Millisecond

// forwardedKey marks the context of a request that arrived over RPC from
// another server. Such a request is never forwarded again: if this server
// is not the leader, it says so and the origin looks for the leader anew,
// so two servers with stale views cannot bounce a request between them.
type forwardedKey struct{}

func markForwarded(ctx context.Context) context.Context {
	return context.WithValue(ctx, forwardedKey{}, true)
}

func isForwarded(ctx context.Context) bool {
	v, _ := ctx.Value(forwardedKey{}).(bool)
	return v
}

// leaderWrite runs a write where it must run: on the leader. On a follower
// it sends req over RPC (method) to the leader, waiting for one to be
// elected if need be; on the leader it calls local. A leader that loses its
// leadership before the write entered the log tries again as a follower.
func leaderWrite[Req, Resp any](ctx context.Context, s *Server, method string, req *Req,
	local func(context.Context, *Req) (*Resp, error)) (*Resp, error) {
	if req == nil {
		return nil, invalidf("%s: no request", method)
	}
	ctx, cancel := s.writeContext(ctx)
	defer cancel()
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", method, context.Cause(ctx))
		}
		if !s.IsLeader() {
			if isForwarded(ctx) {
				return nil, errNotLeader
			}
			var resp Resp
			carryAuthToken(ctx, req)
			err := s.forwardToLeader(ctx, method, req, &resp)
			if errors.Is(err, errNotLeader) && s.IsLeader() {
				continue // elected while forwarding: serve it here
			}
			if err != nil {
				return nil, err
			}
			return &resp, nil
		}
		resp, err := local(ctx, req)
		if !errors.Is(err, errNotLeader) || isForwarded(ctx) {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", method, ErrNoLeader)
		case <-time.After(forwardRetryWait):
		}
	}
}

// writeContext bounds a write whose caller set no deadline, and ends it
// when the server shuts down.
func (s *Server) writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	var cancelTimeout context.CancelFunc = func() {}
	if _, ok := ctx.Deadline(); !ok {
		ctx, cancelTimeout = context.WithTimeout(ctx, s.config.ForwardTimeout)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.shutdownCtx, func() { cancel(errShutdown) })
	return ctx, func() {
		stop()
		cancel(nil)
		cancelTimeout()
	}
}

// errShutdown ends requests that were in flight when the server shut down.
var errShutdown = errors.New("server shutting down")

// forwardToLeader calls method on the leader, retrying while there is no
// leader or the one this server knows has just stepped down.
func (s *Server) forwardToLeader(ctx context.Context, method string, args, reply any) error {
	var lastErr error
	for {
		if leader := s.Leader(); leader != "" && leader != s.advertise {
			err := s.pool.call(ctx, leader, method, args, reply)
			if !retryableForward(method, err) {
				return err
			}
			lastErr = err
		}
		select {
		case <-ctx.Done():
			if cause := context.Cause(ctx); errors.Is(cause, errShutdown) {
				return fmt.Errorf("forward %s: %w", method, cause)
			}
			if lastErr != nil {
				return withKind(ErrNoLeader, fmt.Errorf("forward %s to the leader: %w", method, lastErr))
			}
			return fmt.Errorf("forward %s: %w", method, ErrNoLeader)
		case <-time.After(forwardRetryWait):
		}
		if s.IsLeader() {
			// Elected meanwhile. Callers only forward as followers, so
			// report it as a lost race and let them run the write here.
			return fmt.Errorf("forward %s: %w", method, errNotLeader)
		}
	}
}

// retryableForward reports whether a forwarded call may be sent again:
// either it surely did not run (the connection could not be made, or the
// receiver was not the leader), or the connection broke before the answer
// came and the method is idempotent, so that running it twice is harmless.
//
// A broken connection is what a follower sees when the leader stops: it
// may have closed the connection before or after it read the call, and
// the follower cannot tell which. Shutting down, a leader commits nothing
// more, so a retry usually runs the write for the first time, on the new
// leader.
func retryableForward(method string, err error) bool {
	if err == nil {
		return false
	}
	var de *dialError
	if errors.As(err, &de) || errors.Is(err, errNotLeader) || errors.Is(err, ErrNoLeader) {
		return true
	}
	return idempotentWrites[method] && connectionLost(err)
}

// idempotentWrites are the forwarded writes whose second run changes
// nothing the first did not: registering the same job version again,
// stopping what is stopped, recording the same client status, upserting
// the same evaluations. Periodic.Force is not one (each force launches a
// child), nor is Raft.Apply, whose entries are whatever the caller built.
var idempotentWrites = map[string]bool{
	"ACL.UpsertPolicies":      true,
	"Alloc.SetMaxRunDuration": true,
	"Alloc.Stop":              true,
	"Alloc.UpdateFromClient":  true,
	"Eval.Upsert":             true,
	"Job.Deregister":          true,
	"Job.Register":            true,
	"Node.Deregister":         true,
	"Node.Heartbeat":          true,
	"Node.Register":           true,
	"Node.UpdateDrain":        true,
	"Node.UpdateEligibility":  true,
	"Node.UpdateStatus":       true,
	"Namespace.Upsert":        true,
}

// connectionLost reports whether err is the connection to the receiver
// breaking, not an answer from it.
func connectionLost(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, rpc.ErrShutdown) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// serveRPC runs an RPC handler with a context marked as forwarded and
// encodes its error for the wire.
func (s *Server) serveRPC(fn func(ctx context.Context) error) error {
	return s.serveClient(func(ctx context.Context) error { return fn(markForwarded(ctx)) })
}

// raftApply appends entry to the raft log on this server, which must be
// the leader, waits until it is applied and returns its index.
func (s *Server) raftApply(t MessageType, entry logEntry) (uint64, error) {
	if entry == nil {
		return 0, invalidf("%s: no entry", t)
	}
	if err := entry.validate(); err != nil {
		return 0, err
	}
	data, err := encodeLogEntry(t, entry)
	if err != nil {
		return 0, err
	}
	f := s.raft.Apply(data, s.config.RaftApplyTimeout)
	if err := f.Error(); err != nil {
		return 0, fmt.Errorf("apply %s: %w", t, raftWriteError(err))
	}
	if err, ok := f.Response().(error); ok && err != nil {
		return 0, err
	}
	return f.Index(), nil
}

// raftWriteError marks the raft errors that guarantee the write did not
// enter the log because this server is not (or no longer) the leader.
func raftWriteError(err error) error {
	if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipTransferInProgress) {
		return withKind(errNotLeader, err)
	}
	return err
}

// leaderBarrier makes sure the state store reflects every entry committed
// before this server's current term, once per term, so that checks the
// leader makes against the state (does the job exist? which modify index
// does it have?) see the latest writes.
func (s *Server) leaderBarrier(ctx context.Context) error {
	term := s.raft.CurrentTerm()
	if s.barrierTerm.Load() == term {
		return nil
	}
	timeout := s.config.RaftApplyTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	if err := s.raft.Barrier(timeout).Error(); err != nil {
		if errors.Is(err, raft.ErrLeadershipLost) {
			// A barrier carries no write, so trying again elsewhere
			// cannot apply anything twice.
			err = withKind(errNotLeader, err)
		}
		return fmt.Errorf("wait for the state to catch up: %w", raftWriteError(err))
	}
	s.barrierTerm.Store(term)
	return nil
}
