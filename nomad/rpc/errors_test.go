package rpc

import (
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"
)

func TestRPCError_NotLeaderTakesPrecedence(t *testing.T) {
	err := WithKind(ErrNotLeader, fmt.Errorf("barrier: %w", raft.ErrLeadershipLost))
	got := DecodeError(rpc.ServerError(EncodeError(err).Error()))
	must.ErrorIs(t, got, ErrNotLeader)
}

func TestRPCError_TransportErrorsPassThrough(t *testing.T) {
	must.ErrorIs(t, DecodeError(io.ErrUnexpectedEOF), io.ErrUnexpectedEOF)
	must.Nil(t, EncodeError(nil))
	got := DecodeError(rpc.ServerError("rpc: can't find method Job.Nope"))
	must.EqError(t, got, "rpc: can't find method Job.Nope")
}

func TestWithKind_KeepsMessage(t *testing.T) {
	err := WithKind(ErrIndexConflict, errors.New("Enforcing job modify index 5: job exists with conflicting job modify index: 8"))
	must.EqError(t, err, "Enforcing job modify index 5: job exists with conflicting job modify index: 8")
	must.ErrorIs(t, err, ErrIndexConflict)
}
