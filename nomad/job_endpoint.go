package nomad

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/jobcheck"
	"github.com/drover-io/drover/nomad/logentry"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// JobRegisterRequest registers a job or updates it. The job has been
// canonicalised; the server the request reaches validates it.
type JobRegisterRequest struct {
	AuthRequest
	WriteDeadline
	Job *structs.Job

	// EnforceIndex makes the register conditional on the stored job's
	// JobModifyIndex being JobModifyIndex (0: the job must not exist).
	EnforceIndex   bool
	JobModifyIndex uint64

	// EvalPriority, when not 0, is the priority of the register's
	// evaluation instead of the job's (1 to 100).
	EvalPriority int `json:",omitempty"`
}

// JobRegisterResponse reports a register: the evaluation it created (none
// for a periodic job) and the indexes it wrote at.
type JobRegisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	Index           uint64
	// Warnings say what the register will not do that its caller may
	// expect (rerunWarning).
	Warnings []string `json:",omitempty"`
}

// JobDeregisterRequest stops a job, or purges it from the state.
type JobDeregisterRequest struct {
	AuthRequest
	WriteDeadline
	Namespace string
	JobID     string
	Purge     bool
	// EvalPriority, when not 0, is the priority of the deregister's
	// evaluation instead of the job's (1 to 100).
	EvalPriority int `json:",omitempty"`
}

// JobDeregisterResponse reports a deregister and the evaluation it created
// (none for a periodic job).
type JobDeregisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	Index           uint64
}

// RegisterJob registers a job with an evaluation to schedule it.
func (s *Server) RegisterJob(ctx context.Context, req *JobRegisterRequest) (*JobRegisterResponse, error) {
	if req == nil || req.Job == nil {
		return nil, invalidf("job register: no job")
	}
	if req.Job.Dispatched {
		// As Nomad's: a dispatch makes a dispatched job, a register never.
		return nil, invalidf("job %q: a job can't be registered with Dispatched set: dispatch its parameterized parent instead", req.Job.ID)
	}
	if err := s.checkSubmittedJob(ctx, req.Job); err != nil {
		return nil, err
	}
	return userWrite(ctx, s, "Job.Register", req, allowRegister, s.registerJobLocal)
}

func (s *Server) registerJobLocal(ctx context.Context, req *JobRegisterRequest) (*JobRegisterResponse, error) {
	if req.Job == nil {
		return nil, invalidf("job register: no job")
	}
	job := req.Job.Copy()
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	if err := checkJobNamespace(s.State(), job); err != nil {
		return nil, err
	}
	existing, err := s.State().JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return nil, err
	}
	if req.EnforceIndex {
		if err := logentry.CheckJobModifyIndex(existing, req.JobModifyIndex); err != nil {
			return nil, err
		}
	}

	rerun, err := rerunWarning(existing, job)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	job.SubmitTime = now
	if existing == nil || existing.Stop || existing.Status == structs.JobStatusDead {
		// A new job, or one that runs again, waits for its evaluation.
		job.Status = structs.JobStatusPending
		job.StatusDescription = ""
	} else {
		job.Status = "" // the store keeps the stored status
	}

	entry := &logentry.JobRegister{
		Job:              job,
		EnforceIndex:     req.EnforceIndex,
		JobModifyIndex:   req.JobModifyIndex,
		NamespaceChecked: true,
	}
	if !job.LaunchesChildren() {
		// A periodic or parameterized job only launches children; they
		// get evaluations.
		entry.Eval = newJobEval(job, structs.EvalTriggerJobRegister, now)
		if err := setEvalPriority(entry.Eval, req.EvalPriority); err != nil {
			return nil, err
		}
	}
	index, err := s.raftApply(ctx, logentry.MsgJobRegister, entry)
	if err != nil {
		return nil, err
	}
	resp := &JobRegisterResponse{Index: index, JobModifyIndex: index}
	if rerun != "" {
		resp.Warnings = append(resp.Warnings, rerun)
	}
	if entry.Eval != nil {
		resp.EvalID = entry.Eval.ID
		resp.EvalCreateIndex = index
	}
	if stored, err := s.State().JobByID(nil, job.Namespace, job.ID); err == nil && stored != nil {
		resp.JobModifyIndex = stored.JobModifyIndex
	}
	return resp, nil
}

// checkSubmittedJob holds a job a register, plan or Apply brings in to
// jobcheck.Submitted with this server's limits, once: on the server the
// request reaches. A write another server forwarded was checked there,
// and the leader takes it as it is (the servers share one
// configuration of limits, as they share one of everything else). The
// error is ErrInvalidRequest around the *structs.ValidationError that
// lists every problem.
func (s *Server) checkSubmittedJob(ctx context.Context, job *structs.Job) error {
	if isForwarded(ctx) {
		return nil
	}
	if err := jobcheck.Submitted(job, s.config.JobLimits); err != nil {
		return nomadrpc.WithKind(ErrInvalidRequest, fmt.Errorf("job %q: %w", job.ID, err))
	}
	return nil
}

// namespaceReader is the store or a snapshot of it.
type namespaceReader interface {
	NamespaceByName(ws memdb.WatchSet, name string) (*structs.Namespace, error)
}

// checkJobNamespace refuses a job whose namespace does not exist, or does
// not allow one of the job's task drivers.
func checkJobNamespace(st namespaceReader, job *structs.Job) error {
	ns, err := st.NamespaceByName(nil, job.Namespace)
	if err != nil {
		return err
	}
	if ns == nil {
		return invalidf("job %q: namespace %q does not exist", job.ID, job.Namespace)
	}
	for _, driver := range job.Drivers() {
		if !ns.AllowsDriver(driver) {
			return invalidf("job %q: namespace %q does not allow the %s task driver", job.ID, job.Namespace, driver)
		}
	}
	return applyNamespaceTimeLimits(ns, job)
}

// applyNamespaceTimeLimits gives the job's groups without a
// max_run_duration the namespace's default, then refuses the job if any
// max_run_duration it gives (its own, a group's, a task's, a
// dispatch's) is beyond the namespace's ceiling, naming both. It changes
// job: the caller holds a copy it is about to store.
func applyNamespaceTimeLimits(ns *structs.Namespace, job *structs.Job) error {
	ns.ApplyTimeLimits(job)
	if err := ns.CheckTimeLimits(job); err != nil {
		return nomadrpc.WithKind(ErrInvalidRequest, fmt.Errorf("job %q: %w", job.ID, err))
	}
	return nil
}

// leaderJob is the existing job a write on the leader acts on, read after
// the leader barrier so that every committed write is in the state. what
// names the write in errors; a job that does not exist is ErrNotFound.
func (s *Server) leaderJob(ctx context.Context, what, namespace, jobID string) (*structs.Job, error) {
	if namespace == "" || jobID == "" {
		return nil, invalidf("%s: namespace and job ID are required", what)
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	return s.jobInState(namespace, jobID)
}

// jobInState is the job this server's state holds now, with no barrier
// (unlike storedNode); ErrNotFound when none.
func (s *Server) jobInState(namespace, jobID string) (*structs.Job, error) {
	job, err := s.State().JobByID(nil, namespace, jobID)
	if err != nil {
		return nil, err
	}
	if job == nil {
		return nil, fmt.Errorf("job %q in namespace %q: %w", jobID, namespace, ErrNotFound)
	}
	return job, nil
}

// leaderAlloc is the existing allocation a write on the leader acts on,
// read after the leader barrier; what names the write in errors, and an
// allocation that does not exist is ErrNotFound.
func (s *Server) leaderAlloc(ctx context.Context, what, allocID string) (*structs.Allocation, error) {
	if allocID == "" {
		return nil, invalidf("%s: missing allocation ID", what)
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	alloc, err := s.State().AllocByID(nil, allocID)
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		return nil, fmt.Errorf("allocation %q: %w", allocID, ErrNotFound)
	}
	return alloc, nil
}

// DeregisterJob stops a job, or purges it, with an evaluation that stops its
// allocations. A job that does not exist is an ErrNotFound error.
func (s *Server) DeregisterJob(ctx context.Context, req *JobDeregisterRequest) (*JobDeregisterResponse, error) {
	return userWrite(ctx, s, "Job.Deregister", req, allowDeregister, s.deregisterJobLocal)
}

func (s *Server) deregisterJobLocal(ctx context.Context, req *JobDeregisterRequest) (*JobDeregisterResponse, error) {
	job, err := s.leaderJob(ctx, "job deregister", req.Namespace, req.JobID)
	if errors.Is(err, ErrNotFound) {
		// As Nomad's: stopping a job that does not exist succeeds, with
		// nothing to write and no evaluation.
		return s.deregisterAbsentJob()
	}
	if err != nil {
		return nil, err
	}
	entry := &logentry.JobDeregister{Namespace: req.Namespace, JobID: req.JobID, Purge: req.Purge}
	if !job.LaunchesChildren() {
		entry.Eval = newJobEval(job, structs.EvalTriggerJobDeregister, time.Now().UnixNano())
		if err := setEvalPriority(entry.Eval, req.EvalPriority); err != nil {
			return nil, err
		}
	}
	index, err := s.raftApply(ctx, logentry.MsgJobDeregister, entry)
	if err != nil {
		return nil, err
	}
	resp := &JobDeregisterResponse{Index: index, JobModifyIndex: index}
	if entry.Eval != nil {
		resp.EvalID = entry.Eval.ID
		resp.EvalCreateIndex = index
	}
	return resp, nil
}

// deregisterAbsentJob answers the deregister of a job that does not
// exist at the state's applied index, so that a read at that index sees
// the job absent.
func (s *Server) deregisterAbsentJob() (*JobDeregisterResponse, error) {
	index, err := s.State().AppliedIndex(nil)
	if err != nil {
		return nil, err
	}
	return &JobDeregisterResponse{Index: index}, nil
}

// setEvalPriority gives eval the priority a write asks for, 0 leaving the
// job's: Nomad's eval_priority, which lets an operator have one write's
// evaluation scheduled before (or after) others of the same priority.
func setEvalPriority(eval *structs.Evaluation, priority int) error {
	switch {
	case priority == 0:
	case priority < 1 || priority > 100:
		return invalidf("eval priority must be 1 to 100, got %d", priority)
	default:
		eval.Priority = priority
	}
	return nil
}

// newJobEval returns a pending evaluation of job.
func newJobEval(job *structs.Job, trigger string, now int64) *structs.Evaluation {
	return &structs.Evaluation{
		ID:          structs.GenerateUUID(),
		Namespace:   job.Namespace,
		Priority:    job.Priority,
		Type:        job.Type,
		TriggeredBy: trigger,
		JobID:       job.ID,
		Status:      structs.EvalStatusPending,
		CreateTime:  now,
		ModifyTime:  now,
	}
}

// jobRPC serves the job writes forwarded by other servers.
type jobRPC struct{ srv *Server }

// Register serves RegisterJob.
func (e *jobRPC) Register(args *JobRegisterRequest, reply *JobRegisterResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.RegisterJob(ctx, args))
	})
}

// Deregister serves DeregisterJob.
func (e *jobRPC) Deregister(args *JobDeregisterRequest, reply *JobDeregisterResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.DeregisterJob(ctx, args))
	})
}

// fill returns a function that copies a result into an RPC reply.
func fill[T any](reply *T) func(*T, error) error {
	return func(resp *T, err error) error {
		if err != nil {
			return err
		}
		*reply = *resp
		return nil
	}
}
