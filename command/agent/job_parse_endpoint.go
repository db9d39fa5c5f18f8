package agent

import (
	"errors"
	"net/http"
	"strings"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/jobcheck"
	"github.com/drover-io/drover/jobspec2"
	"github.com/drover-io/drover/structs"
)

// jobsParse serves PUT and POST /v1/jobs/parse: HCL in, job JSON out. With
// Canonicalize the job comes back as the server would store it, defaults
// filled in. The jobspec is held to the agent's hcl_* limits, and its
// evaluation stops when the client goes away.
func (s *HTTPServer) jobsParse(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobsParseRequest
	if err := httpserver.DecodeBody(r, &req, "parse request"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.JobHCL) == "" {
		return nil, httpserver.BadRequest("JobHCL is empty: send the jobspec's HCL in JobHCL")
	}
	job, err := jobspec2.ParseWithContext(r.Context(), &jobspec2.ParseConfig{
		Path:         "input.hcl",
		Body:         []byte(req.JobHCL),
		VarContent:   req.Variables,
		Strict:       true,
		CheckDrivers: true,
		Limits:       s.limits.HCLLimits(),
	})
	if err != nil {
		return nil, httpserver.BadRequest("%v", err)
	}
	if !req.Canonicalize {
		return job, nil
	}
	canonical := convert.JobFromAPI(job)
	canonical.Canonicalize()
	return convert.JobToAPI(canonical), nil
}

// validateJob serves PUT and POST /v1/validate/job. Like Nomad it answers
// 200 for an invalid job, listing every problem; only a body that is not a
// job request is a 400.
func (s *HTTPServer) validateJob(w http.ResponseWriter, r *http.Request) (any, error) {
	req, fields, err := readJobRequest[api.JobValidateRequest](r, "job")
	if err != nil {
		return nil, err
	}
	if err := jobInBody(req.Job, "job validate request", ""); err != nil {
		return nil, err
	}
	ns, err := submittedNamespace(r, req.Job, req.WriteRequest)
	if err != nil {
		return nil, err
	}
	if err := allowJobNamespace(r, ns, acl.CapReadJob); err != nil {
		return nil, err
	}
	resp := &api.JobValidateResponse{ValidationErrors: []string{}, DriverConfigValidated: true}
	warnings := fields.warnings
	job, err := s.submittedJob(r, req.Job, req.WriteRequest, fields)
	if err == nil {
		err = jobcheck.Submitted(job, s.limits.JobLimits())
	}
	var invalid *structs.ValidationError
	switch {
	case err == nil:
		warnings = append(warnings, job.Warnings()...)
	case errors.As(err, &invalid):
		resp.ValidationErrors = httpserver.ValidationMessages(invalid)
		resp.Error = err.Error()
	case err != nil:
		_, reason := httpserver.ErrorStatus(err)
		resp.ValidationErrors = []string{reason}
		resp.Error = reason
	}
	resp.Warnings = strings.Join(warnings, "\n")
	return resp, nil
}
