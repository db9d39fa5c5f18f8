package nomad

import (
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"
)

func TestRPCError_RoundTripKeepsKindAndMessage(t *testing.T) {
	cases := []struct {
		name string
		err  error
		kind error // nil: no kind survives
	}{
		{"not found", fmt.Errorf("job %q: %w", "web", ErrNotFound), ErrNotFound},
		{"invalid", invalidf("job %q: Missing driver", "web"), ErrInvalidRequest},
		{"index conflict", withKind(ErrIndexConflict, errors.New("Enforcing job modify index 3")), ErrIndexConflict},
		{"no leader", fmt.Errorf("forward: %w", ErrNoLeader), ErrNoLeader},
		{"not leader", errNotLeader, errNotLeader},
		{"leadership lost", fmt.Errorf("apply: %w", raft.ErrLeadershipLost), raft.ErrLeadershipLost},
		{"may still apply", mayStillApply(fmt.Errorf("apply: %w", raft.ErrLeadershipLost)), ErrMayStillApply},
		{"not applied", notApplied(errors.New("refused: late")), ErrNotApplied},
		{"not applied, no leader", notApplied(withKind(ErrNoLeader, errors.New("forward: dial"))), ErrNoLeader},
		{"leader unreachable", notApplied(fmt.Errorf("forward: %w", ErrLeaderUnreachable)), ErrLeaderUnreachable},
		{"plain", errors.New("disk on fire"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// net/rpc hands the client only the error's text.
			wire := rpc.ServerError(encodeRPCError(tc.err).Error())
			got := decodeRPCError(wire)

			must.EqError(t, got, tc.err.Error())
			var remote *RemoteError
			must.True(t, errors.As(got, &remote))
			if tc.kind != nil {
				must.ErrorIs(t, got, tc.kind)
			}
			for _, other := range []error{ErrNotFound, ErrInvalidRequest, ErrIndexConflict, ErrNoLeader} {
				if other != tc.kind {
					must.False(t, errors.Is(got, other), must.Sprintf("unexpectedly %v", other))
				}
			}
		})
	}
}

func TestRPCError_NotLeaderTakesPrecedence(t *testing.T) {
	err := withKind(errNotLeader, fmt.Errorf("barrier: %w", raft.ErrLeadershipLost))
	got := decodeRPCError(rpc.ServerError(encodeRPCError(err).Error()))
	must.ErrorIs(t, got, errNotLeader)
}

func TestRPCError_TransportErrorsPassThrough(t *testing.T) {
	must.ErrorIs(t, decodeRPCError(io.ErrUnexpectedEOF), io.ErrUnexpectedEOF)
	must.Nil(t, encodeRPCError(nil))
	got := decodeRPCError(rpc.ServerError("rpc: can't find method Job.Nope"))
	must.EqError(t, got, "rpc: can't find method Job.Nope")
}

func TestWithKind_KeepsMessage(t *testing.T) {
	err := withKind(ErrIndexConflict, errors.New("Enforcing job modify index 5: job exists with conflicting job modify index: 8"))
	must.EqError(t, err, "Enforcing job modify index 5: job exists with conflicting job modify index: 8")
	must.ErrorIs(t, err, ErrIndexConflict)
}
