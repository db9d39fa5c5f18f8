package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// jobRevertRequest is the body of PUT /v1/job/:id/revert, as Nomad's
// client sends it (its Consul and Vault tokens have no use here).
type jobRevertRequest struct {
	JobID      string
	JobVersion uint64
	// EnforcePriorVersion, when set, is the version the job must be at.
	EnforcePriorVersion *uint64
}

// jobRevert serves PUT and POST /v1/job/:id/revert: the server registers
// the job again as it was at an earlier version (nomad.RevertJob).
func (s *HTTPServer) jobRevert(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, ns, id, err := s.jobWrite(r)
	if err != nil {
		return nil, err
	}
	var req jobRevertRequest
	if err := httpserver.DecodeBody(r, &req, "job revert request"); err != nil {
		return nil, err
	}
	if req.JobID != "" && req.JobID != id {
		return nil, httpserver.BadRequest("JobID %q in the body does not match %q in the URL", req.JobID, id)
	}
	resp, err := srv.RevertJob(r.Context(), &nomad.JobRevertRequest{
		Namespace:           ns,
		JobID:               id,
		JobVersion:          req.JobVersion,
		EnforcePriorVersion: req.EnforcePriorVersion,
	})
	if err != nil {
		return nil, err
	}
	return registerAnswer(w, resp), nil
}
