package agent

import (
	"net/http"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/state"
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
	opts, err := parseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	return s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		jobs, err := st.JobsByIDPrefix(ws, opts.Namespace, opts.Prefix)
		if err != nil {
			return nil, 0, err
		}
		stubs := make([]*api.JobListStub, 0, len(jobs))
		for _, job := range jobs {
			summary, err := st.JobSummaryByID(ws, job.Namespace, job.ID)
			if err != nil {
				return nil, 0, err
			}
			stubs = append(stubs, jobStub(job, summary))
		}
		index, err := tablesIndex(st, state.TableJobs, state.TableAllocs, state.TableEvals)
		return stubs, index, err
	})
}

// jobsRegister serves PUT and POST /v1/jobs.
func (s *HTTPServer) jobsRegister(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.registerJob(w, r, "")
}

// jobUpdate serves PUT and POST /v1/job/:id, a register whose job must have
// the ID in the URL.
func (s *HTTPServer) jobUpdate(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	if err := checkID("job ID", id); err != nil {
		return nil, err
	}
	return s.registerJob(w, r, id)
}

// registerJob decodes, converts, canonicalises and validates the job in the
// body and registers it. Fields the job JSON has but Drover does not
// implement come back as warnings.
func (s *HTTPServer) registerJob(w http.ResponseWriter, r *http.Request, pathID string) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	req, warnings, err := readJobRequest[api.JobRegisterRequest](r, "job")
	if err != nil {
		return nil, err
	}
	if err := checkSubmittedJob(req.Job, "job register request", pathID); err != nil {
		return nil, err
	}
	job, err := s.validJobFromRequest(r, req.Job, req.WriteRequest)
	if err != nil {
		return nil, err
	}
	if req.PreserveCounts {
		warnings = append(warnings, `Request field "PreserveCounts" is not supported by Drover and was ignored`)
	}
	if req.EvalPriority != 0 {
		warnings = append(warnings, `Request field "EvalPriority" is not supported by Drover and was ignored`)
	}

	resp, err := srv.RegisterJob(r.Context(), &nomad.JobRegisterRequest{
		Job:            job,
		EnforceIndex:   req.EnforceIndex,
		JobModifyIndex: req.JobModifyIndex,
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, resp.Index)
	return &jobRegisterResponse{
		EvalID:          resp.EvalID,
		EvalCreateIndex: resp.EvalCreateIndex,
		JobModifyIndex:  resp.JobModifyIndex,
		Warnings:        strings.Join(warnings, "\n"),
		Index:           resp.Index,
	}, nil
}

// jobRead serves GET /v1/job/:id.
func (s *HTTPServer) jobRead(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := idQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	out, err := s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		job, err := st.JobByID(ws, opts.Namespace, id)
		if err != nil || job != nil {
			return job, jobIndex(job), err
		}
		index, err := st.Index(state.TableJobs)
		return (*structs.Job)(nil), index, err
	})
	if err != nil {
		return nil, err
	}
	job := out.(*structs.Job)
	if job == nil {
		return nil, notFound("job not found")
	}
	return jobToAPI(job), nil
}

func jobIndex(job *structs.Job) uint64 {
	if job == nil {
		return 0
	}
	return job.ModifyIndex
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
	ns, err = writeNamespace(r)
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
	purge, err := parseBoolParam(r, "purge")
	if err != nil {
		return nil, err
	}
	resp, err := srv.DeregisterJob(r.Context(), &nomad.JobDeregisterRequest{Namespace: ns, JobID: id, Purge: purge})
	if err != nil {
		return nil, err
	}
	setIndex(w, resp.Index)
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
	id, opts, err := idQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	all, err := parseBoolParam(r, "all")
	if err != nil {
		return nil, err
	}
	return s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		job, err := st.JobByID(ws, opts.Namespace, id)
		if err != nil {
			return nil, 0, err
		}
		allocs, err := st.AllocsByJob(ws, opts.Namespace, id)
		if err != nil {
			return nil, 0, err
		}
		stubs := make([]*api.AllocationListStub, 0, len(allocs))
		for _, alloc := range allocs {
			if !all && job != nil && alloc.Job != nil && alloc.Job.CreateIndex != job.CreateIndex {
				continue
			}
			stubs = append(stubs, allocStub(alloc))
		}
		index, err := tablesIndex(st, state.TableAllocs, state.TableJobs)
		return stubs, index, err
	})
}

// jobEvaluations serves GET /v1/job/:id/evaluations.
func (s *HTTPServer) jobEvaluations(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := idQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	return s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		evals, err := st.EvalsByJob(ws, opts.Namespace, id)
		return listResult(st, state.TableEvals, evalsToAPI(evals), err)
	})
}

// jobSummary serves GET /v1/job/:id/summary.
func (s *HTTPServer) jobSummary(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := idQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	out, err := s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		summary, err := st.JobSummaryByID(ws, opts.Namespace, id)
		if err != nil {
			return nil, 0, err
		}
		index, err := tablesIndex(st, state.TableJobs, state.TableAllocs, state.TableEvals)
		return summary, index, err
	})
	if err != nil {
		return nil, err
	}
	summary := out.(*structs.JobSummary)
	if summary == nil {
		return nil, notFound("job not found")
	}
	return jobSummaryToAPI(summary), nil
}

// jobDeployment serves GET /v1/job/:id/deployment, which Nomad's `job
// status` reads. Drover has no deployments, so an existing job has none:
// null, as Nomad answers for a job without one.
func (s *HTTPServer) jobDeployment(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := idQuery(r, "job ID")
	if err != nil {
		return nil, err
	}
	out, err := s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		job, err := st.JobByID(ws, opts.Namespace, id)
		if err != nil {
			return nil, 0, err
		}
		index, err := st.Index(state.TableJobs)
		return job != nil, index, err
	})
	if err != nil {
		return nil, err
	}
	if !out.(bool) {
		return nil, notFound("job not found")
	}
	return jsonNull{}, nil
}

// jsonNull encodes as the JSON literal null.
type jsonNull struct{}

func (jsonNull) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// jobPeriodicForce serves PUT and POST /v1/job/:id/periodic/force.
func (s *HTTPServer) jobPeriodicForce(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, ns, id, err := s.jobWrite(r)
	if err != nil {
		return nil, err
	}
	job, err := srv.State().JobByID(nil, ns, id)
	if err != nil {
		return nil, err
	}
	if job == nil {
		return nil, notFound("job not found")
	}
	if !job.IsPeriodic() {
		return nil, badRequest("job %q is not periodic", id)
	}
	resp, err := srv.PeriodicForceLaunch(r.Context(), ns, id)
	if err != nil {
		return nil, err
	}
	setIndex(w, resp.Index)
	// The shape of Nomad's PeriodicForceResponse.
	type periodicForceResponse struct {
		EvalID          string
		EvalCreateIndex uint64
		Index           uint64
	}
	return &periodicForceResponse{EvalID: resp.EvalID, EvalCreateIndex: resp.EvalCreateIndex, Index: resp.Index}, nil
}
