package agent

import (
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
		{badRequest("bad %s", "thing"), 400, "bad thing"},
		{notFound("job not found"), 404, "job not found"},
		{fmt.Errorf("job %q: %w", "x", nomad.ErrNotFound), 404, `job "x": not found`},
		{fmt.Errorf("wrapped: %w", nomad.ErrInvalidRequest), 400, "wrapped: invalid request"},
		{nomad.ErrIndexConflict, 409, "index conflict"},
		{&http.MaxBytesError{Limit: 10}, 413, "request body too large: the limit is 10 bytes"},
		{&structs.ValidationError{Errors: []error{errors.New("a"), errors.New("b\nc")}}, 400, "invalid job: 2 problems: a; b; c"},
		{errors.New("disk on fire\nreally"), 500, "disk on fire; really"},
	}
	for _, tc := range cases {
		code, msg := errorStatus(tc.err)
		must.Eq(t, tc.code, code, must.Sprint(tc.err))
		must.Eq(t, tc.msg, msg)
	}
}

func TestOneLine(t *testing.T) {
	must.Eq(t, "a", oneLine(" a \n"))
	must.Eq(t, "1 error occurred:; * x", oneLine("1 error occurred:\n\t* x\n\n"))
}
