package nomad

import (
	"context"
	"time"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/structs"
)

// JobEvaluate creates an evaluation of the job as it is stored, so that the
// schedulers look at its placements again without a new version (Nomad's
// job eval): after a node came back, say, or to retry what could not be
// placed. A periodic job is refused: its evaluations are its children's.
func (s *Server) JobEvaluate(ctx context.Context, namespace, jobID string) (*JobRegisterResponse, error) {
	if jobID == "" {
		return nil, invalidf("missing job ID")
	}
	if err := s.authorize(ctx, func(a *acl.ACL) error { return auth.JobEvaluate(a, namespace) }); err != nil {
		return nil, err
	}
	// The evaluation is built from this server's state, which must hold
	// every write answered so far, as a read that is not stale does.
	if err := s.catchUpForRead(ctx); err != nil {
		return nil, err
	}
	job, err := s.jobInState(namespace, jobID)
	if err != nil {
		return nil, err
	}
	if job.IsPeriodic() {
		return nil, invalidf("can't evaluate periodic job %q: force a launch instead (job periodic force)", jobID)
	}
	if job.IsParameterized() {
		return nil, invalidf("can't evaluate parameterized job %q: dispatch it instead (job dispatch)", jobID)
	}
	eval := newJobEval(job, structs.EvalTriggerJobEval, time.Now().UnixNano())
	eval.JobModifyIndex = job.JobModifyIndex
	index, err := s.UpsertEvals(ctx, []*structs.Evaluation{eval})
	if err != nil {
		return nil, err
	}
	return &JobRegisterResponse{EvalID: eval.ID, EvalCreateIndex: index, JobModifyIndex: job.JobModifyIndex, Index: index}, nil
}
