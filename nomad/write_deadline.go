package nomad

import (
	"context"
	"sync/atomic"
	"time"
)

// A write forwarded to the leader carries its deadline, so that the
// leader can tell a request its sender still waits for from one that
// arrives too late: a request held back by a partition and delivered
// once it heals, long after its caller was told it timed out. The leader
// refuses such a request (ErrNotApplied) instead of applying it behind
// the caller's back. The check is made right before the write's first
// entry is proposed to raft; once proposed, an entry may commit later
// than the deadline, and the caller, who no longer waits, is told the
// write may still apply (ErrMayStillApply).
//
// The deadline is an instant on the sender's wall clock: a relative
// timeout would restart when the delayed request finally arrives. Server
// clocks must therefore agree to within a small part of the forward
// timeout (NTP keeps them within milliseconds); a leader whose clock runs
// ahead refuses writes early, never late.

// forwardAnswerReserve is how long before its own deadline a forwarding
// server asks the leader to stop starting the write, so that a write the
// leader starts just in time can still be committed and answered before
// the caller gives up. A quarter of the time left, when that is less.
const forwardAnswerReserve = time.Second

// WriteDeadline is embedded in every request a server forwards to the
// leader (leaderWrite takes no other).
type WriteDeadline struct {
	// Deadline is the instant, in Unix nanoseconds of the sending
	// server's clock, after which the leader must not start the write;
	// 0 when the sender set none.
	Deadline int64 `json:",omitempty"`
}

func (w *WriteDeadline) setDeadline(t time.Time) {
	w.Deadline = 0
	if !t.IsZero() {
		w.Deadline = t.UnixNano()
	}
}

func (w *WriteDeadline) deadline() (time.Time, bool) {
	if w.Deadline == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, w.Deadline), true
}

// deadlineCarrier is a request that carries its write's deadline.
type deadlineCarrier interface {
	setDeadline(time.Time)
	deadline() (time.Time, bool)
}

// carryDeadline puts in req the instant after which the leader must not
// start it: ctx's deadline less a reserve for the answer.
func carryDeadline(ctx context.Context, req deadlineCarrier) {
	dl, ok := ctx.Deadline()
	if !ok {
		req.setDeadline(time.Time{})
		return
	}
	reserve := max(min(forwardAnswerReserve, time.Until(dl)/4), 0)
	req.setDeadline(dl.Add(-reserve))
}

// withCarriedDeadline bounds ctx, that of a write another server
// forwarded, by the deadline the sender set.
func withCarriedDeadline(ctx context.Context, req deadlineCarrier) (context.Context, context.CancelFunc) {
	dl, ok := req.deadline()
	if !ok {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, dl)
}

// proposalKey marks the context of a write a caller waits for.
type proposalKey struct{}

// proposal records whether a write has put an entry in the raft log. A
// write may take several entries (a forced periodic launch registers the
// child, then records the launch); the deadline is checked before the
// first only, so that a write is refused whole or finished whole.
type proposal struct{ started atomic.Bool }

func withProposal(ctx context.Context) context.Context {
	return context.WithValue(ctx, proposalKey{}, &proposal{})
}

func proposalFrom(ctx context.Context) *proposal {
	p, _ := ctx.Value(proposalKey{}).(*proposal)
	return p
}
