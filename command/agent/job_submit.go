package agent

import (
	"cmp"
	"net/http"
	"reflect"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/jobcheck"
	"github.com/drover-io/drover/structs"
)

// Register, plan and validate requests all submit a job in their body;
// these helpers read and check it the same way for each.

// readJobRequest reads and decodes a body of type R (api.JobRegisterRequest,
// api.JobPlanRequest, ...), and reports the fields it sets that Drover
// does not implement: submittedJob refuses the job for some, the
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

// jobInBody rejects a request, named by kind, that carries no job, or
// whose job's ID is not pathID when the URL names one.
func jobInBody(job *api.Job, kind, pathID string) error {
	if job == nil {
		return httpserver.BadRequest(`%s has no job: the body must be {"Job": {...}}`, kind)
	}
	if pathID != "" && (job.ID == nil || *job.ID != pathID) {
		return httpserver.BadRequest("job ID %q in the body does not match %q in the URL", convert.Deref(job.ID), pathID)
	}
	return nil
}

// submittedJob converts a submitted job into the internal model, in the
// namespace and region the request gives it when it names none, with its
// defaults filled in. It does not validate the job: the server does
// (jobcheck). The fields the request set that Drover refuses are refused
// here, with every problem jobcheck finds besides, in one error.
func (s *HTTPServer) submittedJob(r *http.Request, in *api.Job, wr api.WriteRequest, fields *fieldReport) (*structs.Job, error) {
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
	job.Canonicalize()
	if fields.refuses() {
		return nil, fields.refuse(jobcheck.Submitted(job, s.limits.JobLimits()))
	}
	return job, nil
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

// CanonicalJob converts a job in its wire form into the internal model and
// fills in its defaults, as the agent does with the job of a register,
// plan or validate request. `drover job validate` holds the result to
// jobcheck.Submitted without a server.
func CanonicalJob(in *api.Job) *structs.Job {
	job := convert.JobFromAPI(in)
	job.Canonicalize()
	return job
}
