package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
)

// jobEvaluateRequest is the body of PUT /v1/job/:id/evaluate, as Nomad's
// client sends it; the body may be left out.
type jobEvaluateRequest struct {
	JobID       string
	EvalOptions struct {
		ForceReschedule bool
	}
}

// jobEvaluate serves PUT and POST /v1/job/:id/evaluate: an evaluation of
// the stored job, without a new version.
func (s *HTTPServer) jobEvaluate(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, ns, id, err := s.jobWrite(r)
	if err != nil {
		return nil, err
	}
	var req jobEvaluateRequest
	if r.Body != nil && r.Body != http.NoBody {
		if err := httpserver.DecodeBody(r, &req, "job evaluate request"); err != nil {
			return nil, err
		}
	}
	if req.JobID != "" && req.JobID != id {
		return nil, httpserver.BadRequest("JobID %q in the body does not match %q in the URL", req.JobID, id)
	}
	if req.EvalOptions.ForceReschedule {
		return nil, httpserver.BadRequest("EvalOptions.ForceReschedule is not supported by Drover: failed allocations are rescheduled by their reschedule policy only")
	}
	resp, err := srv.JobEvaluate(r.Context(), ns, id)
	if err != nil {
		return nil, err
	}
	return registerAnswer(w, resp), nil
}
