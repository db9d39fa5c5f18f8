package partition

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestWriteOutcome(t *testing.T) {
	answer := func(code int, body string) error {
		return fmt.Errorf("register: %w", api.UnexpectedResponseError{StatusCode: code, Body: body})
	}
	for name, tc := range map[string]struct {
		err  error
		want Outcome
	}{
		"success":                  {nil, Done},
		"refused":                  {answer(400, "job has no task groups"), Failed},
		"no leader":                {answer(500, "No cluster leader"), Failed},
		"leadership lost":          {answer(500, "apply JobRegister: leadership lost while committing log"), Failed},
		"may still apply":          {answer(504, "apply JobRegister: leadership lost while committing log: the write may still be applied"), Unknown},
		"any gateway timeout":      {answer(504, "Gateway Timeout"), Unknown},
		"500 that says it":         {answer(500, "the write may still be applied"), Unknown},
		"not applied":              {answer(503, "the write was not applied"), Failed},
		"refusal that mentions it": {answer(400, "the write may still be applied"), Failed},
		"timed out":                {&url.Error{Op: "Put", URL: "http://198.18.0.10:4646/v1/jobs", Err: context.DeadlineExceeded}, Unknown},
		"connection broke":         {errors.New("EOF"), Unknown},
	} {
		must.Eq(t, tc.want, WriteOutcome(tc.err), must.Sprint(name))
	}
}

func TestReadOutput(t *testing.T) {
	version, stopped := uint64(3), true
	job := &api.Job{Meta: map[string]string{"value": "w7"}, Version: &version, Stop: &stopped}
	out, _ := ReadOutput(job, nil, nil)
	must.Eq(t, Output{Outcome: Done, Job: Job{Exists: true, Value: "w7", Version: 3, Stopped: true}}, out)

	out, note := ReadOutput(nil, nil, api.UnexpectedResponseError{StatusCode: 404, Body: "job not found"})
	must.Eq(t, Output{Outcome: Done}, out)
	must.Eq(t, "not found", note)

	out, note = ReadOutput(nil, nil, api.UnexpectedResponseError{StatusCode: 500, Body: "No cluster leader"})
	must.Eq(t, Unknown, out.Outcome)
	must.StrContains(t, note, "No cluster leader")

	out, _ = ReadOutput(&api.Job{}, nil, nil)
	must.Eq(t, Unknown, out.Outcome)
}
