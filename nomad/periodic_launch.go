package nomad

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/periodic"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// serverLauncher launches periodic children through raft.
type serverLauncher struct{ srv *Server }

func (l serverLauncher) Launch(ctx context.Context, job *structs.Job, at time.Time) error {
	_, err := l.srv.launchPeriodicChild(ctx, job, at)
	return err
}

func (l serverLauncher) RunningChild(job *structs.Job) (string, error) {
	children, err := l.srv.State().JobChildren(nil, job.Namespace, job.ID)
	if err != nil {
		return "", err
	}
	for _, c := range children {
		if c.Status != structs.JobStatusDead {
			return c.ID, nil
		}
	}
	return "", nil
}

func (l serverLauncher) StopRunning(ctx context.Context, job *structs.Job, at time.Time) ([]string, error) {
	return l.srv.stopPeriodicChildren(ctx, job, periodic.ChildID(job.ID, at))
}

func (l serverLauncher) Skipped(ctx context.Context, job *structs.Job, at time.Time, child string) error {
	return l.srv.recordSkippedLaunch(ctx, job, at, child)
}

// stopPeriodicChildren stops (without purging) every child of a periodic
// job that is not dead and not stopped yet, each with the evaluation that
// stops its allocations, as `job stop` would: overlap = "replace". The
// child named except, the one the coming launch evaluates again when it
// falls in the same second, stays. It returns the IDs of the children it
// stopped.
func (s *Server) stopPeriodicChildren(ctx context.Context, parent *structs.Job, except string) ([]string, error) {
	children, err := s.State().JobChildren(nil, parent.Namespace, parent.ID)
	if err != nil {
		return nil, err
	}
	var stopped []string
	for _, c := range children {
		if c.Status == structs.JobStatusDead || c.Stop || c.ID == except {
			continue
		}
		entry := &logentry.JobDeregister{
			Namespace: c.Namespace,
			JobID:     c.ID,
			Eval:      newJobEval(c, structs.EvalTriggerJobDeregister, time.Now().UnixNano()),
		}
		if _, err := s.raftApply(ctx, logentry.MsgJobDeregister, entry); err != nil {
			return stopped, fmt.Errorf("stop child %q of periodic job %q to replace it: %w", c.ID, parent.ID, err)
		}
		stopped = append(stopped, c.ID)
	}
	return stopped, nil
}

// SkippedLaunchPrefix begins the StatusDescription of the evaluation that
// records a periodic job's last skipped launch; the reason follows it.
const SkippedLaunchPrefix = "launch skipped: "

// recordSkippedLaunch makes a launch that prohibit_overlap skipped
// visible: the parent gets a canceled evaluation, triggered by
// "periodic-job", whose CreateTime is the launch time and whose
// StatusDescription says why (`eval status`, `job status` and the event
// stream show it). A parent has at most one: each skip updates it, so
// that a long-running child does not pile up an evaluation per tick.
func (s *Server) recordSkippedLaunch(ctx context.Context, parent *structs.Job, at time.Time, child string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	eval := newJobEval(parent, structs.EvalTriggerPeriodicJob, time.Now().UnixNano())
	eval.Status = structs.EvalStatusCancelled
	eval.StatusDescription = fmt.Sprintf("%s%s was still running and the job prohibits overlap", SkippedLaunchPrefix, child)
	eval.CreateTime = at.UnixNano()
	evals, err := s.State().EvalsByJob(nil, parent.Namespace, parent.ID)
	if err != nil {
		return err
	}
	for _, e := range evals {
		if isSkippedLaunch(e) {
			eval.ID = e.ID
			break
		}
	}
	if _, err := s.raftApply(ctx, logentry.MsgEvalUpdate, &logentry.EvalUpdate{Evals: []*structs.Evaluation{eval}}); err != nil {
		return fmt.Errorf("record skipped launch of periodic job %q: %w", parent.ID, err)
	}
	return nil
}

// isSkippedLaunch reports whether e records a skipped periodic launch.
func isSkippedLaunch(e *structs.Evaluation) bool {
	return e.TriggeredBy == structs.EvalTriggerPeriodicJob && e.Status == structs.EvalStatusCancelled &&
		strings.HasPrefix(e.StatusDescription, SkippedLaunchPrefix)
}

// launchPeriodicChild registers the child of a periodic job for a launch
// time, with an evaluation, and records the launch so that a new leader
// knows it. A child already launched for that second gets a new
// evaluation instead. It runs on the leader and returns the evaluation's
// ID.
func (s *Server) launchPeriodicChild(ctx context.Context, parent *structs.Job, at time.Time) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	now := time.Now().UnixNano()
	child := periodic.DeriveChild(parent, at, now)
	existing, err := s.State().JobByID(nil, child.Namespace, child.ID)
	if err != nil {
		return "", err
	}
	var eval *structs.Evaluation
	if existing == nil {
		eval = newJobEval(child, structs.EvalTriggerPeriodicJob, now)
		if _, err := s.raftApply(ctx, logentry.MsgJobRegister, &logentry.JobRegister{Job: child, Eval: eval, NamespaceChecked: true}); err != nil {
			return "", fmt.Errorf("register child %q of periodic job %q: %w", child.ID, parent.ID, err)
		}
	} else {
		eval = newJobEval(existing, structs.EvalTriggerPeriodicJob, now)
		if _, err := s.raftApply(ctx, logentry.MsgEvalUpdate, &logentry.EvalUpdate{Evals: []*structs.Evaluation{eval}}); err != nil {
			return "", fmt.Errorf("evaluate child %q of periodic job %q: %w", child.ID, parent.ID, err)
		}
	}
	launch := &state.PeriodicLaunch{ID: parent.ID, Namespace: parent.Namespace, Launch: at}
	if _, err := s.raftApply(ctx, logentry.MsgPeriodicLaunch, &logentry.PeriodicLaunch{Launch: launch}); err != nil {
		return "", fmt.Errorf("record launch of periodic job %q: %w", parent.ID, err)
	}
	s.logger.Info("launched periodic job", "job_id", parent.ID, "child", child.ID, "eval_id", eval.ID)
	return eval.ID, nil
}

// restorePeriodic tracks every periodic job on gaining leadership, and
// launches once each job that missed a run since its last launch (or,
// never launched, since it was submitted), unless it prohibits overlap
// and a child still runs.
func (s *Server) restorePeriodic(ctx context.Context, jobs []*structs.Job) error {
	now := time.Now()
	for _, job := range jobs {
		if !job.LaunchesPeriodically() || job.Stop {
			continue
		}
		s.periodic.Add(job)
		last := time.Unix(0, job.SubmitTime)
		launch, err := s.State().PeriodicLaunchByID(nil, job.Namespace, job.ID)
		if err != nil {
			return err
		}
		if launch != nil {
			last = launch.Launch
		}
		next, err := periodic.NextLaunch(job, last)
		if err != nil {
			s.logger.Error("periodic job has a bad schedule", "job_id", job.ID, "error", err)
			continue
		}
		if next.IsZero() || !next.Before(now) {
			continue
		}
		s.logger.Info("periodic job missed a launch while there was no leader; launching it now", "job_id", job.ID, "missed", next)
		s.periodic.LaunchUnlessOverlapping(ctx, job, now)
	}
	return nil
}

// PeriodicForceRequest launches a periodic job now.
type PeriodicForceRequest struct {
	AuthRequest
	WriteDeadline
	Namespace string
	JobID     string
}

// PeriodicForceResponse reports a forced launch.
type PeriodicForceResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	Index           uint64
}

// PeriodicForce launches a periodic job now, outside its schedule (and,
// as Nomad's, regardless of prohibit_overlap), and returns the evaluation
// of the child. A job whose overlap is "replace" has its running children
// stopped first, as its scheduled launches do. An unknown job is an ErrNotFound error; one that is not periodic
// an ErrInvalidRequest error.
func (s *Server) PeriodicForce(ctx context.Context, namespace, jobID string) (string, error) {
	resp, err := s.PeriodicForceLaunch(ctx, namespace, jobID)
	if err != nil {
		return "", err
	}
	return resp.EvalID, nil
}

// PeriodicForceLaunch is PeriodicForce with the indexes of the write.
func (s *Server) PeriodicForceLaunch(ctx context.Context, namespace, jobID string) (*PeriodicForceResponse, error) {
	req := &PeriodicForceRequest{Namespace: namespace, JobID: jobID}
	return userWrite(ctx, s, "Periodic.Force", req, allowForce, s.periodicForceLocal)
}

func (s *Server) periodicForceLocal(ctx context.Context, req *PeriodicForceRequest) (*PeriodicForceResponse, error) {
	job, err := s.leaderJob(ctx, "periodic force", req.Namespace, req.JobID)
	if err != nil {
		return nil, err
	}
	if !job.IsPeriodic() {
		return nil, invalidf("job %q is not periodic", req.JobID)
	}
	if job.IsParameterized() {
		return nil, invalidf("job %q is parameterized: it launches nothing until dispatched; force one of its dispatched children instead", req.JobID)
	}
	if job.Stop {
		return nil, invalidf("periodic job %q is stopped", req.JobID)
	}
	now := time.Now()
	if job.Periodic.OverlapPolicy() == structs.PeriodicOverlapReplace {
		stopped, err := s.stopPeriodicChildren(ctx, job, periodic.ChildID(job.ID, now))
		if err != nil {
			return nil, err
		}
		if len(stopped) > 0 {
			s.logger.Info("forced launch replaces the running children of periodic job", "job_id", job.ID, "stopped", stopped)
		}
	}
	evalID, err := s.launchPeriodicChild(ctx, job, now)
	if err != nil {
		return nil, err
	}
	eval, err := s.State().EvalByID(nil, evalID)
	if err != nil {
		return nil, err
	}
	resp := &PeriodicForceResponse{EvalID: evalID}
	if eval != nil {
		resp.EvalCreateIndex = eval.CreateIndex
	}
	if resp.Index, err = s.State().LatestIndex(); err != nil {
		return nil, err
	}
	return resp, nil
}

// periodicRPC serves the periodic writes forwarded by other servers.
type periodicRPC struct{ srv *Server }

// Force serves PeriodicForceLaunch.
func (e *periodicRPC) Force(args *PeriodicForceRequest, reply *PeriodicForceResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.PeriodicForceLaunch(ctx, args.Namespace, args.JobID))
	})
}
