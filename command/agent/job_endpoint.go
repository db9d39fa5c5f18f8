package agent

import (
	"context"
	"net/http"
	"strings"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// jobRegisterResponse is the answer to a job register, as Nomad's JSON has
// it.
type jobRegisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	Warnings        string
	Index           uint64
}

// jobDeregisterResponse is the answer to DELETE /v1/job/:id.
type jobDeregisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	Index           uint64
}

// jobsList serves GET /v1/jobs: the stubs of the jobs whose ID starts with
// ?prefix, each with its summary.
func (s *HTTPServer) jobsList(w http.ResponseWriter, r *http.Request) (any, error) {
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	jobs, err := serveRead(s, w, r, opts, (*nomad.Server).ListJobs)
	if err != nil {
		return nil, err
	}
	return convert.List(jobs, func(e nomad.JobListEntry) *api.JobListStub { return convert.JobStub(e.Job, e.Summary) }), nil
}

// jobsRegister serves PUT and POST /v1/jobs.
func (s *HTTPServer) jobsRegister(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.registerJob(w, r, "")
}

// jobUpdate serves PUT and POST /v1/job/:id, a register whose job must have
// the ID in the URL.
func (s *HTTPServer) jobUpdate(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	if err := httpserver.CheckID("job ID", id); err != nil {
		return nil, err
	}
	return s.registerJob(w, r, id)
}

// registerJob decodes, converts and canonicalises the job in the body and
// registers it; the server validates it. Fields the job JSON has but Drover does not
// implement are refused or come back as warnings, as api/unsupported
// decides.
func (s *HTTPServer) registerJob(w http.ResponseWriter, r *http.Request, pathID string) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	req, fields, err := readJobRequest[api.JobRegisterRequest](r, "job")
	if err != nil {
		return nil, err
	}
	if err := jobInBody(req.Job, "job register request", pathID); err != nil {
		return nil, err
	}
	job, err := s.submittedJob(r, req.Job, req.WriteRequest, fields)
	if err != nil {
		return nil, err
	}
	warnings := append(fields.warnings, job.Warnings()...)
	if req.PreserveCounts {
		warnings = append(warnings, `Request field "PreserveCounts" is not supported by Drover and was ignored`)
	}

	resp, err := srv.RegisterJob(r.Context(), &nomad.JobRegisterRequest{
		Job:            job,
		EnforceIndex:   req.EnforceIndex,
		JobModifyIndex: req.JobModifyIndex,
		EvalPriority:   req.EvalPriority,
	})
	if err != nil {
		return nil, err
	}
	return registerAnswer(w, resp, warnings...), nil
}

// registerAnswer is the answer to a write that registers a job or
// evaluates it (register, revert, evaluate): the server's response, with
// its warnings after those of the request, and its index as the header.
func registerAnswer(w http.ResponseWriter, resp *nomad.JobRegisterResponse, warnings ...string) *jobRegisterResponse {
	warnings = append(warnings, resp.Warnings...)
	httpserver.SetIndex(w, resp.Index)
	return &jobRegisterResponse{
		EvalID:          resp.EvalID,
		EvalCreateIndex: resp.EvalCreateIndex,
		JobModifyIndex:  resp.JobModifyIndex,
		Warnings:        strings.Join(warnings, "\n"),
		Index:           resp.Index,
	}
}

// jobRead serves GET /v1/job/:id.
func (s *HTTPServer) jobRead(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	job, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) (*structs.Job, nomad.QueryMeta, error) {
		return srv.GetJob(ctx, id, q)
	})
	if err != nil {
		return nil, err
	}
	if job == nil {
		return nil, httpserver.NotFound("job not found")
	}
	return convert.JobToAPI(job), nil
}

// jobWrite checks what a write to one job needs: the agent's server, the
// region (?region, when given, must be this cluster's), the namespace it
// writes in and the job ID from the URL.
func (s *HTTPServer) jobWrite(r *http.Request) (srv *nomad.Server, ns, id string, err error) {
	srv, id, err = s.serverWrite(r, "job ID")
	if err != nil {
		return nil, "", "", err
	}
	if err := s.checkRegion(r.URL.Query().Get("region")); err != nil {
		return nil, "", "", err
	}
	ns, err = httpserver.WriteNamespace(r)
	if err != nil {
		return nil, "", "", err
	}
	return srv, ns, id, nil
}

// jobDelete serves DELETE /v1/job/:id?purge=true|false.
func (s *HTTPServer) jobDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, ns, id, err := s.jobWrite(r)
	if err != nil {
		return nil, err
	}
	purge, err := httpserver.ParseBoolParam(r, "purge")
	if err != nil {
		return nil, err
	}
	evalPriority, err := parseEvalPriority(r)
	if err != nil {
		return nil, err
	}
	resp, err := srv.DeregisterJob(r.Context(), &nomad.JobDeregisterRequest{Namespace: ns, JobID: id, Purge: purge, EvalPriority: evalPriority})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return &jobDeregisterResponse{
		EvalID:          resp.EvalID,
		EvalCreateIndex: resp.EvalCreateIndex,
		JobModifyIndex:  resp.JobModifyIndex,
		Index:           resp.Index,
	}, nil
}

// jobAllocations serves GET /v1/job/:id/allocations. Without ?all=true only
// the allocations of the job as it now exists count, not those left from an
// earlier job of the same ID that was purged.
func (s *HTTPServer) jobAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	all, err := httpserver.ParseBoolParam(r, "all")
	if err != nil {
		return nil, err
	}
	allocs, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) ([]*structs.Allocation, nomad.QueryMeta, error) {
		return srv.JobAllocations(ctx, id, all, q)
	})
	if err != nil {
		return nil, err
	}
	return convert.AllocStubs(allocs), nil
}

// jobEvaluations serves GET /v1/job/:id/evaluations.
func (s *HTTPServer) jobEvaluations(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	evals, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) ([]*structs.Evaluation, nomad.QueryMeta, error) {
		return srv.JobEvaluations(ctx, id, q)
	})
	if err != nil {
		return nil, err
	}
	return convert.EvalsToAPI(evals), nil
}

// jobSummary serves GET /v1/job/:id/summary.
func (s *HTTPServer) jobSummary(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	summary, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) (*structs.JobSummary, nomad.QueryMeta, error) {
		return srv.GetJobSummary(ctx, id, q)
	})
	if err != nil {
		return nil, err
	}
	if summary == nil {
		return nil, httpserver.NotFound("job not found")
	}
	return convert.JobSummaryToAPI(summary), nil
}

// jsonNull encodes as the JSON literal null.
type jsonNull struct{}

func (jsonNull) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// jobPeriodicForce serves PUT and POST /v1/job/:id/periodic/force. The
// server checks the caller, then that the job exists and is periodic.
func (s *HTTPServer) jobPeriodicForce(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, ns, id, err := s.jobWrite(r)
	if err != nil {
		return nil, err
	}
	resp, err := srv.PeriodicForceLaunch(r.Context(), ns, id)
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	// The shape of Nomad's PeriodicForceResponse.
	type periodicForceResponse struct {
		EvalID          string
		EvalCreateIndex uint64
		Index           uint64
	}
	return &periodicForceResponse{EvalID: resp.EvalID, EvalCreateIndex: resp.EvalCreateIndex, Index: resp.Index}, nil
}
