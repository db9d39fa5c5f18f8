package nomad

import (
	"errors"
	"fmt"
	"net/rpc"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

func TestRPCError_RoundTripKeepsKindAndMessage(t *testing.T) {
	cases := []struct {
		name string
		err  error
		kind error // nil: no kind survives
	}{
		{"not found", fmt.Errorf("job %q: %w", "web", ErrNotFound), ErrNotFound},
		{"invalid", invalidf("job %q: Missing driver", "web"), ErrInvalidRequest},
		{"index conflict", nomadrpc.WithKind(ErrIndexConflict, errors.New("Enforcing job modify index 3")), ErrIndexConflict},
		{"no leader", fmt.Errorf("forward: %w", ErrNoLeader), ErrNoLeader},
		{"not leader", nomadrpc.ErrNotLeader, nomadrpc.ErrNotLeader},
		{"leadership lost", fmt.Errorf("apply: %w", raft.ErrLeadershipLost), raft.ErrLeadershipLost},
		{"may still apply", mayStillApply(fmt.Errorf("apply: %w", raft.ErrLeadershipLost)), ErrMayStillApply},
		{"not applied", notApplied(errors.New("refused: late")), ErrNotApplied},
		{"not applied, no leader", notApplied(nomadrpc.WithKind(ErrNoLeader, errors.New("forward: dial"))), ErrNoLeader},
		{"leader unreachable", notApplied(fmt.Errorf("forward: %w", ErrLeaderUnreachable)), ErrLeaderUnreachable},
		{"plain", errors.New("disk on fire"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// net/rpc hands the client only the error's text.
			wire := rpc.ServerError(nomadrpc.EncodeError(tc.err).Error())
			got := nomadrpc.DecodeError(wire)

			must.EqError(t, got, tc.err.Error())
			var remote *nomadrpc.RemoteError
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
