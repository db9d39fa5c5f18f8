package agent

import (
	"cmp"
	"net/http"
	"reflect"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/structs"
)

// Register, plan and validate requests all submit a job in their body;
// these helpers read and check it the same way for each.

// readJobRequest reads and decodes a body of type R (api.JobRegisterRequest,
// api.JobPlanRequest, ...), and reports the fields it sets that Drover
// does not implement: validJobFromRequest refuses the job for some, the
// others are warnings. what names the body in errors.
func readJobRequest[R any](r *http.Request, what string) (*R, *fieldReport, error) {
	body, err := httpserver.ReadBody(r, what)
	if err != nil {
		return nil, nil, err
	}
	var req R
	if err := httpserver.UnmarshalBody(body, &req, what); err != nil {
		return nil, nil, err
	}
	return &req, checkUnsupported(body, reflect.TypeFor[R]()), nil
}

// checkSubmittedJob rejects a request, named by kind, that carries no job,
// or whose job's ID is not pathID when the URL names one.
func checkSubmittedJob(job *api.Job, kind, pathID string) error {
	if job == nil {
		return httpserver.BadRequest(`%s has no job: the body must be {"Job": {...}}`, kind)
	}
	if pathID != "" && (job.ID == nil || *job.ID != pathID) {
		return httpserver.BadRequest("job ID %q in the body does not match %q in the URL", convert.Deref(job.ID), pathID)
	}
	return nil
}

// validJobFromRequest converts a submitted job into the internal model,
// canonicalises and validates it; the fields the request set that Drover
// refuses are validation problems too. A job without a namespace or region
// takes the request's.
func (s *HTTPServer) validJobFromRequest(r *http.Request, in *api.Job, wr api.WriteRequest, fields *fieldReport) (*structs.Job, error) {
	job, err := s.checkedJob(r, in, wr)
	if err = fields.refuse(err); err != nil {
		return nil, err
	}
	return job, nil
}

// checkedJob converts, canonicalises and validates a submitted job.
func (s *HTTPServer) checkedJob(r *http.Request, in *api.Job, wr api.WriteRequest) (*structs.Job, error) {
	job := convert.JobFromAPI(in)
	ns, err := submittedNamespace(r, in, wr)
	if err != nil {
		return nil, err
	}
	job.Namespace = ns
	if job.Region == "" {
		job.Region = cmp.Or(wr.Region, r.URL.Query().Get("region"), s.agent.config.Region)
	}
	if err := s.checkRegion(job.Region); err != nil {
		return nil, err
	}
	return canonicalValid(job, s.limits.JobLimits())
}

// submittedNamespace is the namespace a submitted job goes to: its own,
// else the request body's, else the URL's.
func submittedNamespace(r *http.Request, in *api.Job, wr api.WriteRequest) (string, error) {
	if in.Namespace != nil && *in.Namespace != "" {
		return *in.Namespace, nil
	}
	if wr.Namespace != "" {
		return wr.Namespace, nil
	}
	return httpserver.WriteNamespace(r)
}

// ValidJob converts a submitted job into the internal model, fills in its
// defaults and validates it, as the agent does with the job of a register,
// plan or validate request; `drover job validate` calls it to check a
// jobspec without a server. The job limits are not checked: they are a
// server's configuration, which it holds every job it takes in to. An
// invalid job's error is a *structs.ValidationError that lists every
// problem.
func ValidJob(in *api.Job) (*structs.Job, error) {
	return canonicalValid(convert.JobFromAPI(in), structs.JobLimits{})
}

// canonicalValid fills in a converted job's defaults and validates it,
// limits included: every problem comes back in one *structs.ValidationError.
func canonicalValid(job *structs.Job, limits structs.JobLimits) (*structs.Job, error) {
	job.Canonicalize()
	if err := structs.JoinValidation(job.Validate(), taskConfigProblems(job), job.CheckLimits(limits)); err != nil {
		return nil, err
	}
	return job, nil
}
