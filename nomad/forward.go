package nomad

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/logentry"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
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

// forwardedRequest is what leaderWrite takes: a pointer to a request that
// carries its deadline to the leader.
type forwardedRequest[Req any] interface {
	*Req
	deadlineCarrier
}

// leaderWrite runs a write where it must run: on the leader. On a follower
// it sends req over RPC (method) to the leader, waiting for one to be
// elected if need be; on the leader it calls local. A leader that loses
// its leadership before the write entered the log tries again as a
// follower. The write is bounded by ctx and, when ctx has no deadline, by
// the forward timeout; a write that timed out is ErrNotApplied or
// ErrMayStillApply, as is the case (see forwardCall).
func leaderWrite[Req any, P forwardedRequest[Req], Resp any](ctx context.Context, s *Server, method string, req P,
	local func(context.Context, P) (*Resp, error)) (*Resp, error) {
	if req == nil {
		return nil, invalidf("%s: no request", method)
	}
	ctx, cancel := s.writeContext(ctx)
	defer cancel()
	if isForwarded(ctx) {
		return serveForwarded(ctx, s, method, req, local)
	}
	ctx = withProposal(ctx)
	for {
		if s.IsLeader() {
			resp, err := local(ctx, req)
			if !errors.Is(err, nomadrpc.ErrNotLeader) {
				return resp, err
			}
			// Lost the leadership before the write entered the log:
			// look for the new leader.
			select {
			case <-ctx.Done():
				return nil, notApplied(fmt.Errorf("%s: %w", method, ErrNoLeader))
			case <-time.After(forwardRetryWait):
			}
			continue
		}
		var resp Resp
		carryAuthToken(ctx, req)
		carryDeadline(ctx, req)
		err := s.forwardToLeader(ctx, method, req, &resp)
		if errors.Is(err, nomadrpc.ErrNotLeader) && s.IsLeader() {
			continue // elected while forwarding: serve it here
		}
		if err != nil {
			return nil, err
		}
		return &resp, nil
	}
}

// serveForwarded serves a write another server forwarded: here, if this
// server leads, and only until the deadline the sender set. It is never
// forwarded again.
func serveForwarded[Req any, P forwardedRequest[Req], Resp any](ctx context.Context, s *Server, method string, req P,
	local func(context.Context, P) (*Resp, error)) (*Resp, error) {
	if !s.IsLeader() {
		return nil, nomadrpc.ErrNotLeader
	}
	ctx, cancel := withCarriedDeadline(ctx, req)
	defer cancel()
	if ctx.Err() != nil {
		dl, _ := req.deadline()
		// Held up on the way (a partition that healed), or the
		// servers' clocks disagree.
		s.logger.Warn("refused a forwarded write that arrived after its deadline", "method", method, "late_by", time.Since(dl))
		return nil, notApplied(fmt.Errorf("%s: refused: the request arrived %s after its deadline", method, time.Since(dl).Round(time.Millisecond)))
	}
	return local(withProposal(ctx), req)
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

// errLeaderChanged ends a forwarded call whose leader raft no longer
// names: a leader that froze after reading the call may never answer.
var errLeaderChanged = errors.New("raft elected another leader before this one answered")

// readIndexMethod is the one request forwardToLeader sends that writes
// nothing.
const readIndexMethod = "Status.ReadIndex"

// forwardToLeader calls method on the leader, retrying while there is no
// leader or the one this server knows has just stepped down, and at the
// new leader when raft elects another while the call waits for its
// answer (for a call that is safe to send twice). It gives up at once
// when this server cannot connect to the leader raft names (see
// leaderReach).
func (s *Server) forwardToLeader(ctx context.Context, method string, args, reply any) error {
	fc := &forwardCall{method: method, repeatable: repeatableForwards[method], write: method != readIndexMethod}
	for {
		changed := s.leaderWatch.next()
		if leader := s.Leader(); leader != "" && leader != s.advertise {
			err := s.callLeader(ctx, leader, method, args, reply)
			if done, err := fc.settle(ctx, leader, err); done {
				return err
			}
			if trouble := s.leaderReach.Trouble(leader); trouble != nil {
				return fc.unreachable(trouble)
			}
		}
		select {
		case <-ctx.Done():
			return fc.expired(ctx)
		case <-changed: // another leader, or none: look again at once
		case <-time.After(forwardRetryWait):
		}
		if s.IsLeader() {
			// Elected meanwhile. Callers only forward as followers, so
			// report it as a lost race and let them run the write here.
			return fmt.Errorf("forward %s: %w", method, nomadrpc.ErrNotLeader)
		}
	}
}

// callLeader sends one attempt to leader, and stops waiting for its answer
// when raft names another leader.
func (s *Server) callLeader(ctx context.Context, leader, method string, args, reply any) error {
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go s.cancelOnLeaderChange(callCtx, cancel, leader)
	err := s.pool.Call(callCtx, leader, method, args, reply)
	if callCtx.Err() == nil {
		s.leaderReach.Record(leader, err)
	}
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(callCtx), errLeaderChanged) && !notSent(err) {
		return fmt.Errorf("rpc %s to %s: %w", method, leader, errLeaderChanged)
	}
	return err
}

// forwardCall is what the attempts of one forwarded request have shown.
type forwardCall struct {
	method string
	// repeatable: a second run changes nothing the first did not.
	repeatable bool
	// write: it changes the state (the read index request does not).
	write bool
	// mayHaveRun: an attempt reached a leader whose answer never came.
	mayHaveRun bool
	// lastErr is the latest attempt's failure.
	lastErr error
}

// settle classifies an attempt's outcome: done, with the error to return,
// or to be tried again.
//
//   - An attempt that was surely not run (no connection, or the receiver
//     was not the leader) is tried again.
//   - An answer is final, but one that says the write was not applied
//     says it may still apply when an earlier attempt may have run.
//   - An attempt sent without an answer (the connection broke, raft
//     elected another leader, the caller's deadline passed) may have run:
//     it is tried again only if the method is repeatable and time is left;
//     otherwise the write may still apply.
func (fc *forwardCall) settle(ctx context.Context, leader string, err error) (bool, error) {
	var remote *nomadrpc.RemoteError
	switch {
	case err == nil:
		return true, nil
	case notSent(err):
		fc.lastErr = err
		return false, nil
	case errors.As(err, &remote):
		if fc.mayHaveRun && errors.Is(err, ErrNotApplied) {
			return true, mayStillApply(fmt.Errorf("forward %s: an earlier attempt had no answer; %w", fc.method, err))
		}
		return true, err
	}
	fc.mayHaveRun = true
	fc.lastErr = err
	if ctx.Err() != nil {
		return true, fc.expired(ctx)
	}
	if fc.repeatable {
		return false, nil
	}
	return true, fc.outcomeUnknown(fmt.Errorf("forward %s to the leader at %s: %w", fc.method, leader, err))
}

// expired is the error of a call whose context ended.
func (fc *forwardCall) expired(ctx context.Context) error {
	cause := context.Cause(ctx)
	var err error
	switch {
	case errors.Is(cause, errShutdown):
		err = fmt.Errorf("forward %s: %w", fc.method, cause)
	case fc.lastErr != nil && errors.Is(fc.lastErr, cause):
		err = fmt.Errorf("forward %s to the leader: %w", fc.method, fc.lastErr)
	case fc.lastErr != nil:
		err = fmt.Errorf("forward %s to the leader: %w; last attempt: %w", fc.method, cause, fc.lastErr)
	default:
		err = fmt.Errorf("forward %s: %w: %w", fc.method, cause, ErrNoLeader)
	}
	if fc.mayHaveRun {
		return fc.outcomeUnknown(err)
	}
	if !errors.Is(cause, errShutdown) {
		err = nomadrpc.WithKind(ErrNoLeader, err)
	}
	return fc.notRun(err)
}

// unreachable is the error of a call given up because this server cannot
// connect to the leader.
func (fc *forwardCall) unreachable(trouble error) error {
	err := fmt.Errorf("forward %s: %w", fc.method, trouble)
	if fc.mayHaveRun {
		return fc.outcomeUnknown(err)
	}
	return fc.notRun(err)
}

// outcomeUnknown marks err, after which the write may have run, as such.
func (fc *forwardCall) outcomeUnknown(err error) error {
	if !fc.write {
		return err
	}
	return mayStillApply(err)
}

// notRun marks err, after which the write surely did not run, as such.
func (fc *forwardCall) notRun(err error) error {
	if !fc.write {
		return err
	}
	return notApplied(err)
}

// notSent reports whether err shows that a call was not run: it could not
// be sent (no connection; the pool is closed), or its receiver answered
// that it is not the leader, or knows none.
func notSent(err error) bool {
	var de *nomadrpc.DialError
	return errors.As(err, &de) || errors.Is(err, nomadrpc.ErrPoolClosed) ||
		errors.Is(err, nomadrpc.ErrNotLeader) || errors.Is(err, ErrNoLeader)
}

// repeatableForwards are the forwarded requests that may run twice
// whatever runs between the two: the read index, which changes nothing,
// a node's heartbeat, which only pushes its TTL further, and the system
// writes. A request
// whose answer did not come (the leader stopped or froze, the connection
// broke) may or may not have run, or may still run when a partition
// heals and the bytes already sent arrive; these are sent again, to the
// new leader if raft elected one, and every other write answers
// ErrMayStillApply.
//
// Writes that only look repeatable are not: a job register run again
// after another caller's stop of the same job runs the job again, and a
// stop run again after another caller's register stops it. The partition
// suite (e2e/partition) saw exactly that, a register applied twice
// around a stop, when Job.Register was sent again here.
var repeatableForwards = map[string]bool{
	"Node.Heartbeat": true,
	readIndexMethod:  true,
	// A garbage collection run again removes only what garbage
	// collection would remove then anyway; reconciling summaries
	// writes nothing.
	"System.GarbageCollect":     true,
	"System.ReconcileSummaries": true,
}

// serveRPC runs an RPC handler with a context marked as forwarded and
// encodes its error for the wire.
func (s *Server) serveRPC(fn func(ctx context.Context) error) error {
	return s.serveClient(func(ctx context.Context) error { return fn(markForwarded(ctx)) })
}

// raftApply appends entry to the raft log on this server, which must be
// the leader, waits until it is applied and returns its index. A write a
// caller waits for (leaderWrite's) is refused, ErrNotApplied, if ctx has
// ended before its first entry is proposed; once proposed, an entry whose
// result does not come before ctx ends, or whose leader loses its
// leadership meanwhile, is ErrMayStillApply.
func (s *Server) raftApply(ctx context.Context, t logentry.MessageType, entry logentry.Entry) (uint64, error) {
	if entry == nil {
		return 0, invalidf("%s: no entry", t)
	}
	if err := entry.Validate(); err != nil {
		return 0, err
	}
	data, err := logentry.Encode(t, entry)
	if err != nil {
		return 0, err
	}
	p := proposalFrom(ctx)
	timeout := s.config.RaftApplyTimeout
	if p == nil || !p.started.Load() {
		if ctx.Err() != nil {
			return 0, notApplied(fmt.Errorf("apply %s: refused: its deadline passed before it could enter the log: %w", t, context.Cause(ctx)))
		}
		if dl, ok := ctx.Deadline(); ok {
			timeout = min(timeout, time.Until(dl))
		}
	}
	if p != nil {
		p.started.Store(true)
	}
	f := s.raft.Apply(data, timeout)
	if err := awaitApply(ctx, f); err != nil {
		return 0, fmt.Errorf("apply %s: %w", t, err)
	}
	if err, ok := f.Response().(error); ok && err != nil {
		return 0, err
	}
	return f.Index(), nil
}

// awaitApply waits for f's result, or until ctx ends.
func awaitApply(ctx context.Context, f raft.ApplyFuture) error {
	if ctx.Done() == nil {
		return raftApplyError(f.Error())
	}
	result := make(chan error, 1)
	go func() { result <- f.Error() }()
	select {
	case err := <-result:
		return raftApplyError(err)
	case <-ctx.Done():
		return mayStillApply(fmt.Errorf("no result before the deadline: %w", context.Cause(ctx)))
	}
}

// raftApplyError says what an Apply future's error means for the write:
// not entered (not the leader: try the new one; the entry could not be
// queued in time: not applied), or entered with its fate unknown (the
// leadership was lost before it committed).
func raftApplyError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, raft.ErrEnqueueTimeout):
		return notApplied(err)
	case errors.Is(err, raft.ErrLeadershipLost):
		return mayStillApply(err)
	}
	return raftWriteError(err)
}

// raftWriteError marks the raft errors that guarantee the write did not
// enter the log because this server is not (or no longer) the leader.
func raftWriteError(err error) error {
	if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipTransferInProgress) {
		return nomadrpc.WithKind(nomadrpc.ErrNotLeader, err)
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
			err = nomadrpc.WithKind(nomadrpc.ErrNotLeader, err)
		}
		return fmt.Errorf("wait for the state to catch up: %w", raftWriteError(err))
	}
	s.barrierTerm.Store(term)
	return nil
}
