package partition

import (
	"errors"
	"net/http"
	"strings"

	"github.com/drover-io/drover/api"
)

// mayStillApply ends the reason of a write a server could not confirm
// (website/content/docs/api/index.md): its outcome is unknown, not
// failed. Its status is 504, whichever server answered.
const mayStillApply = "the write may still be applied"

// ReadOutput is what a read of a job through the HTTP API returned, as
// the model sees it, and a note for the visualization. A job's value is
// its meta "value". A read that was not answered is Unknown (it
// constrains nothing); one answered "not found" saw no job.
func ReadOutput(job *api.Job, _ *api.QueryMeta, err error) (Output, string) {
	switch {
	case api.IsNotFound(err):
		return Output{Outcome: Done}, "not found"
	case err != nil:
		return Output{Outcome: Unknown}, err.Error()
	case job.Version == nil || job.Stop == nil:
		return Output{Outcome: Unknown}, "the job has no version or stop flag"
	}
	got := Job{Exists: true, Value: job.Meta["value"], Stopped: *job.Stop, Version: *job.Version}
	return Output{Outcome: Done, Job: got}, "ok"
}

// WriteOutcome is what a write's error says of its effect, as the API
// documents it: none is success. A refusal (4xx) changed nothing. A
// server error (5xx) did not either, unless it is a 504 or says that the
// write may still be applied: a server that cannot tell must say so. No
// answer at all (a timeout, a broken connection) is unknown.
func WriteOutcome(err error) Outcome {
	if err == nil {
		return Done
	}
	var resp api.UnexpectedResponseError
	if !errors.As(err, &resp) {
		return Unknown
	}
	if resp.StatusCode == http.StatusGatewayTimeout ||
		resp.StatusCode >= http.StatusInternalServerError && strings.Contains(resp.Body, mayStillApply) {
		return Unknown
	}
	return Failed
}
