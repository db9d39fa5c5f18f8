package api

import (
	"errors"
	"net/url"
	"strconv"
)

// Jobs is the handle on the job endpoints.
type Jobs struct {
	client *Client
}

// Jobs returns the handle on the job endpoints.
func (c *Client) Jobs() *Jobs {
	return &Jobs{client: c}
}

// RegisterOptions refine a job registration.
type RegisterOptions struct {
	// EnforceIndex makes the registration succeed only if the job's current
	// JobModifyIndex equals ModifyIndex; zero means "the job must not exist".
	EnforceIndex bool
	ModifyIndex  uint64

	PolicyOverride bool
	PreserveCounts bool
	EvalPriority   int
}

// jobPath returns the escaped path of a job, or of one of its sub-resources.
func jobPath(jobID string, sub ...string) string {
	p := "/v1/job/" + url.PathEscape(jobID)
	for _, s := range sub {
		p += "/" + s
	}
	return p
}

var errNilJob = errors.New("job is nil")

// Register submits a job, creating or updating it, and returns the
// evaluation that will place it.
func (j *Jobs) Register(job *Job, q *WriteOptions) (*JobRegisterResponse, *WriteMeta, error) {
	return j.RegisterOpts(job, nil, q)
}

// EnforceRegister registers job only if its current JobModifyIndex is
// modifyIndex, guarding against concurrent updates.
func (j *Jobs) EnforceRegister(job *Job, modifyIndex uint64, q *WriteOptions) (*JobRegisterResponse, *WriteMeta, error) {
	return j.RegisterOpts(job, &RegisterOptions{EnforceIndex: true, ModifyIndex: modifyIndex}, q)
}

// RegisterOpts registers job with the given options; nil opts means none.
func (j *Jobs) RegisterOpts(job *Job, opts *RegisterOptions, q *WriteOptions) (*JobRegisterResponse, *WriteMeta, error) {
	if job == nil {
		return nil, nil, errNilJob
	}
	req := &JobRegisterRequest{Job: job}
	if opts != nil {
		req.EnforceIndex = opts.EnforceIndex
		req.JobModifyIndex = opts.ModifyIndex
		req.PolicyOverride = opts.PolicyOverride
		req.PreserveCounts = opts.PreserveCounts
		req.EvalPriority = opts.EvalPriority
	}
	var resp JobRegisterResponse
	wm, err := j.client.put("/v1/jobs", req, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, wm, nil
}

// List returns the jobs the options select; q.Prefix filters by ID prefix.
func (j *Jobs) List(q *QueryOptions) ([]*JobListStub, *QueryMeta, error) {
	var resp []*JobListStub
	qm, err := j.client.query("/v1/jobs", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// PrefixList returns the jobs whose ID starts with prefix.
func (j *Jobs) PrefixList(prefix string) ([]*JobListStub, *QueryMeta, error) {
	return j.List(&QueryOptions{Prefix: prefix})
}

// Info returns the job with the given ID.
func (j *Jobs) Info(jobID string, q *QueryOptions) (*Job, *QueryMeta, error) {
	var resp Job
	qm, err := j.client.query(jobPath(jobID), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// Allocations returns the allocations of a job's current version, or of
// every version when all is set.
func (j *Jobs) Allocations(jobID string, all bool, q *QueryOptions) ([]*AllocationListStub, *QueryMeta, error) {
	q = withParam(q, "all", strconv.FormatBool(all))
	var resp []*AllocationListStub
	qm, err := j.client.query(jobPath(jobID, "allocations"), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Evaluations returns a job's evaluations.
func (j *Jobs) Evaluations(jobID string, q *QueryOptions) ([]*Evaluation, *QueryMeta, error) {
	var resp []*Evaluation
	qm, err := j.client.query(jobPath(jobID, "evaluations"), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Summary returns a job's allocation counts per task group.
func (j *Jobs) Summary(jobID string, q *QueryOptions) (*JobSummary, *QueryMeta, error) {
	var resp JobSummary
	qm, err := j.client.query(jobPath(jobID, "summary"), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// Versions returns every stored version of a job, newest first, and, when
// diffs is set, how each differs from the version before it: Diffs[i] is
// how Versions[i] differs from Versions[i+1], one diff fewer than versions.
func (j *Jobs) Versions(jobID string, diffs bool, q *QueryOptions) ([]*Job, []*JobDiff, *QueryMeta, error) {
	return j.VersionsOpts(jobID, &VersionsOptions{Diffs: diffs}, q)
}

// VersionsOptions refine a versions query.
type VersionsOptions struct {
	// Diffs asks for how the versions differ.
	Diffs bool
	// DiffVersion, with Diffs, is the version every version is compared
	// with instead of the one before it: one diff per version.
	DiffVersion *uint64
}

// VersionsOpts is Versions with every option; nil opts asks for no diffs.
func (j *Jobs) VersionsOpts(jobID string, opts *VersionsOptions, q *QueryOptions) ([]*Job, []*JobDiff, *QueryMeta, error) {
	if opts == nil {
		opts = &VersionsOptions{}
	}
	params := map[string]string{"diffs": strconv.FormatBool(opts.Diffs)}
	if opts.DiffVersion != nil {
		params["diff_version"] = strconv.FormatUint(*opts.DiffVersion, 10)
	}
	var resp JobVersionsResponse
	qm, err := j.client.query(jobPath(jobID, "versions"), &resp, withParams(q, params))
	if err != nil {
		return nil, nil, nil, err
	}
	return resp.Versions, resp.Diffs, qm, nil
}

// Deregister stops a job, and with purge also removes it from the state, and
// returns the evaluation that stops its allocations.
func (j *Jobs) Deregister(jobID string, purge bool, q *WriteOptions) (string, *WriteMeta, error) {
	params := url.Values{"purge": {strconv.FormatBool(purge)}}
	var resp JobDeregisterResponse
	wm, err := j.client.delete(jobPath(jobID), params, &resp, q)
	if err != nil {
		return "", nil, err
	}
	return resp.EvalID, wm, nil
}

// Validate asks the server whether job is valid without registering it.
func (j *Jobs) Validate(job *Job, q *WriteOptions) (*JobValidateResponse, *WriteMeta, error) {
	if job == nil {
		return nil, nil, errNilJob
	}
	var resp JobValidateResponse
	wm, err := j.client.put("/v1/validate/job", &JobValidateRequest{Job: job}, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, wm, nil
}

// ParseHCL has the server turn an HCL jobspec into a job, filling in
// defaults when canonicalize is set.
func (j *Jobs) ParseHCL(jobHCL string, canonicalize bool) (*Job, error) {
	return j.ParseHCLOpts(&JobsParseRequest{JobHCL: jobHCL, Canonicalize: canonicalize})
}

// ParseHCLOpts is ParseHCL with every field of the request, such as
// variables.
func (j *Jobs) ParseHCLOpts(req *JobsParseRequest) (*Job, error) {
	if req == nil {
		return nil, errors.New("parse request is nil")
	}
	var job Job
	if _, err := j.client.post("/v1/jobs/parse", req, &job, nil); err != nil {
		return nil, err
	}
	return &job, nil
}

// periodicForceResponse is the answer to POST /v1/job/:id/periodic/force.
type periodicForceResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	Index           uint64
}

// PeriodicForce launches a periodic job now, outside its schedule, and
// returns the evaluation of the launched child.
func (j *Jobs) PeriodicForce(jobID string, q *WriteOptions) (string, *WriteMeta, error) {
	var resp periodicForceResponse
	wm, err := j.client.post(jobPath(jobID, "periodic", "force"), nil, &resp, q)
	if err != nil {
		return "", nil, err
	}
	if wm.LastIndex == 0 {
		wm.LastIndex = resp.Index
	}
	return resp.EvalID, wm, nil
}
