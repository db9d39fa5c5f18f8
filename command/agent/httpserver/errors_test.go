package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

func TestErrorStatus(t *testing.T) {
	cases := []struct {
		err  error
		code int
		msg  string
	}{
		{BadRequest("bad %s", "thing"), 400, "bad thing"},
		{NotFound("job not found"), 404, "job not found"},
		{fmt.Errorf("job %q: %w", "x", nomad.ErrNotFound), 404, `job "x": not found`},
		{fmt.Errorf("wrapped: %w", nomad.ErrInvalidRequest), 400, "wrapped: invalid request"},
		{nomad.ErrIndexConflict, 409, "index conflict"},
		{&http.MaxBytesError{Limit: 10}, 413, "request body too large: the limit is 10 bytes"},
		{&structs.ValidationError{Errors: []error{errors.New("a"), errors.New("b\nc")}}, 400, "invalid job: 2 problems: a; b; c"},
		{errors.New("disk on fire\nreally"), 500, "disk on fire; really"},
		// A write's timeouts say whether it may still apply.
		{fmt.Errorf("forward Job.Register: no answer: %w", nomad.ErrMayStillApply), 504, "forward Job.Register: no answer: the write may still be applied"},
		{fmt.Errorf("%w: %w", nomad.ErrMayStillApply, context.Canceled), 504, "the write may still be applied: context canceled"},
		{fmt.Errorf("Job.Register: refused: late: %w", nomad.ErrNotApplied), 503, "Job.Register: refused: late: the write was not applied"},
		{fmt.Errorf("forward Node.Heartbeat: %w: %w", nomad.ErrLeaderUnreachable, nomad.ErrNotApplied), 503,
			"forward Node.Heartbeat: the leader is unreachable from this server: the write was not applied"},
		{fmt.Errorf("forward Job.Register: %w: %w", nomad.ErrNoLeader, nomad.ErrNotApplied), 500, "forward Job.Register: no cluster leader: the write was not applied"},
	}
	for _, tc := range cases {
		code, msg := ErrorStatus(tc.err)
		must.Eq(t, tc.code, code, must.Sprint(tc.err))
		must.Eq(t, tc.msg, msg)
	}
}

func TestOneLine(t *testing.T) {
	must.Eq(t, "a", OneLine(" a \n"))
	must.Eq(t, "1 error occurred:; * x", OneLine("1 error occurred:\n\t* x\n\n"))
}
