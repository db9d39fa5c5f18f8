package agent

import (
	"net/http"
	"strings"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// jobPlanPath is the path of a job's dry run.
const jobPlanPath = "/v1/job/{id}/plan"

// jobPlan serves PUT and POST /v1/job/:id/plan: what registering the job in
// the body would do, without registering it. The job is converted and
// canonicalised as a register's is, and the server validates it; the server's scheduler
// runs on a snapshot of its state and nothing is written. Fields Drover does
// not implement are refused or come back as warnings, as for a register.
func (s *HTTPServer) jobPlan(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.serverWrite(r, "job ID")
	if err != nil {
		return nil, err
	}
	req, fields, err := readJobRequest[api.JobPlanRequest](r, "job plan request")
	if err != nil {
		return nil, err
	}
	if err := jobInBody(req.Job, "job plan request", id); err != nil {
		return nil, err
	}
	job, err := s.submittedJob(r, req.Job, req.WriteRequest, fields)
	if err != nil {
		return nil, err
	}
	warnings := append(fields.warnings, job.Warnings()...)
	if req.PolicyOverride {
		warnings = append(warnings, `Request field "PolicyOverride" is not supported by Drover and was ignored`)
	}
	resp, err := srv.PlanJob(r.Context(), &nomad.JobPlanRequest{Job: job, Diff: req.Diff})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return convert.PlanResponseToAPI(resp, strings.Join(warnings, "\n")), nil
}
