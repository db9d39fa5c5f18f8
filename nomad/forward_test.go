package nomad

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

func TestForwardCall_Settle(t *testing.T) {
	lost := fmt.Errorf("rpc Job.Register to 127.0.0.1:4647: %w", io.ErrUnexpectedEOF)
	changed := fmt.Errorf("rpc Job.Register to 127.0.0.1:4647: %w", errLeaderChanged)
	remote := func(kind error) error { return &nomadrpc.RemoteError{Message: "from the leader", Sentinel: kind} }
	cases := []struct {
		name    string
		method  string
		err     error
		ranOnce bool // an earlier attempt may have run
		expired bool // the caller's context has ended

		wantDone bool
		wantKind error // nil: the error as it came, or none
	}{
		{name: "success", method: "Job.Register", wantDone: true},
		{name: "never dialled", method: "Periodic.Force", err: &nomadrpc.DialError{Addr: "x", Err: syscall.ECONNREFUSED}},
		{name: "receiver not the leader", method: "Periodic.Force", err: remote(nomadrpc.ErrNotLeader)},
		{name: "receiver knows no leader", method: "Periodic.Force", err: remote(ErrNoLeader)},
		{name: "repeatable, connection broke", method: "Node.Heartbeat", err: lost},
		{name: "repeatable, connection reset", method: readIndexMethod, err: fmt.Errorf("rpc: %w", syscall.ECONNRESET)},
		{name: "repeatable, client shut down", method: "Node.Heartbeat", err: rpc.ErrShutdown},
		{name: "repeatable, leader changed", method: "Node.Heartbeat", err: changed},
		{name: "register, leader changed", method: "Job.Register", err: changed, wantDone: true, wantKind: ErrMayStillApply},
		{name: "stop, connection broke", method: "Job.Deregister", err: lost, wantDone: true, wantKind: ErrMayStillApply},
		{name: "client update, connection reset", method: "Alloc.UpdateFromClient", err: fmt.Errorf("rpc: %w", syscall.ECONNRESET), wantDone: true, wantKind: ErrMayStillApply},
		{name: "read index, leader changed", method: readIndexMethod, err: changed},
		{name: "not repeatable, connection broke", method: "Periodic.Force", err: lost, wantDone: true, wantKind: ErrMayStillApply},
		{name: "not repeatable, leader changed", method: "Raft.Apply", err: changed, wantDone: true, wantKind: ErrMayStillApply},
		{name: "sent, then the caller's deadline", method: "Job.Register", err: lost, expired: true, wantDone: true, wantKind: ErrMayStillApply},
		{name: "an answer from the leader", method: "Job.Register", err: remote(ErrInvalidRequest), wantDone: true, wantKind: ErrInvalidRequest},
		{name: "refused as late", method: "Job.Register", err: remote(ErrNotApplied), wantDone: true, wantKind: ErrNotApplied},
		{name: "refused as late after an attempt without answer", method: "Job.Register", err: remote(ErrNotApplied), ranOnce: true, wantDone: true, wantKind: ErrMayStillApply},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.expired {
				cancel()
			}
			fc := &forwardCall{method: tc.method, repeatable: repeatableForwards[tc.method], write: tc.method != readIndexMethod, mayHaveRun: tc.ranOnce}
			done, err := fc.settle(ctx, "127.0.0.1:4647", tc.err)
			must.Eq(t, tc.wantDone, done)
			if !done || tc.err == nil {
				must.NoError(t, err)
				return
			}
			must.Error(t, err)
			if tc.wantKind != nil {
				must.ErrorIs(t, err, tc.wantKind)
			}
			if tc.wantKind == ErrMayStillApply {
				must.StrContains(t, err.Error(), "may still be applied")
				must.False(t, errors.Is(err, ErrNotApplied) && !tc.ranOnce, must.Sprint("both applied and not"))
			}
		})
	}
}

func TestForwardCall_ExpiredSaysWhetherTheWriteRan(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	neverSent := &forwardCall{method: "Job.Register", write: true, lastErr: &nomadrpc.DialError{Addr: "x", Err: syscall.ECONNREFUSED}}
	err := neverSent.expired(ctx)
	must.ErrorIs(t, err, ErrNotApplied)
	must.ErrorIs(t, err, ErrNoLeader)
	must.False(t, errors.Is(err, ErrMayStillApply))

	sent := &forwardCall{method: "Job.Register", write: true, mayHaveRun: true, lastErr: io.ErrUnexpectedEOF}
	err = sent.expired(ctx)
	must.ErrorIs(t, err, ErrMayStillApply)
	must.False(t, errors.Is(err, ErrNotApplied))

	read := &forwardCall{method: readIndexMethod, mayHaveRun: true, lastErr: io.ErrUnexpectedEOF}
	err = read.expired(ctx)
	must.False(t, errors.Is(err, ErrMayStillApply))
	must.False(t, errors.Is(err, ErrNotApplied))
}
