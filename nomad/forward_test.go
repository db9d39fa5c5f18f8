package nomad

import (
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
)

func TestRetryableForward(t *testing.T) {
	lost := fmt.Errorf("rpc Job.Register to 127.0.0.1:4647: %w", io.ErrUnexpectedEOF)
	cases := []struct {
		name   string
		method string
		err    error
		want   bool
	}{
		{"success", "Job.Register", nil, false},
		{"never dialled", "Periodic.Force", &dialError{addr: "x", err: syscall.ECONNREFUSED}, true},
		{"receiver not the leader", "Periodic.Force", errNotLeader, true},
		{"no leader", "Periodic.Force", ErrNoLeader, true},
		{"idempotent write, connection broke", "Job.Register", lost, true},
		{"idempotent write, connection reset", "Alloc.UpdateFromClient", fmt.Errorf("rpc: %w", syscall.ECONNRESET), true},
		{"idempotent write, client shut down", "Node.Heartbeat", rpc.ErrShutdown, true},
		{"not idempotent, connection broke", "Periodic.Force", lost, false},
		{"generic apply, connection broke", "Raft.Apply", lost, false},
		{"an answer from the leader", "Job.Register", invalidf("job: bad"), false},
		{"some other failure", "Job.Register", errors.New("boom"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, retryableForward(tc.method, tc.err))
		})
	}
}
