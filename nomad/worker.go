package nomad

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/nomad/broker"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/scheduler"
	"github.com/drover-io/drover/structs"
)

// schedulerTypes are the evaluation queues the workers serve.
var schedulerTypes = []string{
	structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysbatch,
}

// indexWaitLimit bounds how long a worker waits for the state to reach
// an index it needs.
const indexWaitLimit = 10 * time.Second

// worker takes evaluations from the broker, runs the scheduler of their
// job's type over a snapshot of the state, and acknowledges them.
type worker struct {
	srv    *Server
	logger hclog.Logger
}

// run serves evaluations until ctx ends or the broker is disabled.
func (w *worker) run(ctx context.Context) {
	for {
		eval, token, err := w.srv.evalBroker.Dequeue(ctx, schedulerTypes)
		if err != nil {
			return
		}
		if err := w.process(ctx, eval, token); err != nil {
			w.logger.Warn("evaluation not processed; giving it back", "eval_id", eval.ID, "job_id", eval.JobID, "error", err)
			if nerr := w.srv.evalBroker.Nack(eval.ID, token); nerr != nil {
				w.logger.Debug("nack evaluation", "eval_id", eval.ID, "error", nerr)
			}
			continue
		}
		if err := w.srv.evalBroker.Ack(eval.ID, token); err != nil {
			w.logger.Warn("ack evaluation", "eval_id", eval.ID, "error", err)
		}
	}
}

// process runs the scheduler on one evaluation, over a state that has at
// least everything the evaluation was written with.
func (w *worker) process(ctx context.Context, eval *structs.Evaluation, token string) error {
	if err := w.srv.waitForIndex(ctx, eval.ModifyIndex); err != nil {
		return err
	}
	snap, err := w.srv.State().Snapshot()
	if err != nil {
		return err
	}
	index, err := snap.LatestIndex()
	if err != nil {
		return err
	}
	jobType, err := evalJobType(snap, eval)
	if err != nil {
		return err
	}
	p := &workerPlanner{w: w, ctx: ctx, eval: eval, token: token, snapshotIndex: index}
	if refused, err := w.refuseOverLimits(snap, eval, p); refused || err != nil {
		return err
	}
	sched, err := scheduler.NewScheduler(jobType, w.logger, snap, p)
	if err != nil {
		return err
	}
	start := time.Now()
	err = sched.Process(eval.Copy())
	metrics.MeasureSince([]string{"worker", "invoke_scheduler", jobType}, start)
	return err
}

// refuseOverLimits fails, without running the scheduler, an evaluation
// whose job asks for more than this server's limits allow: one stored
// before the limits were lowered, or by a server with higher ones. The
// scheduler builds a placement per allocation asked for, and a count of a
// billion would exhaust the leader's memory, and then every new leader's.
// A stopped job is scheduled, to stop what it has.
func (w *worker) refuseOverLimits(snap *state.StateSnapshot, eval *structs.Evaluation, p *workerPlanner) (bool, error) {
	job, err := snap.JobByID(nil, eval.Namespace, eval.JobID)
	if err != nil || job == nil || job.Stop {
		return false, err
	}
	limitErr := job.CheckCountLimits(w.srv.config.JobLimits)
	if limitErr == nil {
		return false, nil
	}
	failed := eval.Copy()
	failed.Status = structs.EvalStatusFailed
	failed.StatusDescription = structs.JobLimitError(job, limitErr)
	w.logger.Warn("evaluation refused: its job is over this server's limits", "eval_id", eval.ID, "job_id", job.ID, "error", limitErr)
	return true, p.UpdateEval(failed)
}

// evalJobType is the scheduler type of an evaluation: its own, else its
// job's, else service (the job is gone; any generic scheduler stops what
// is left of it).
func evalJobType(snap *state.StateSnapshot, eval *structs.Evaluation) (string, error) {
	if eval.Type != "" {
		return eval.Type, nil
	}
	job, err := snap.JobByID(nil, eval.Namespace, eval.JobID)
	if err != nil {
		return "", err
	}
	if job != nil && job.Type != "" {
		return job.Type, nil
	}
	return structs.JobTypeService, nil
}

// waitForIndex waits until this server's state has applied index.
func (s *Server) waitForIndex(ctx context.Context, index uint64) error {
	deadline := time.Now().Add(indexWaitLimit)
	for {
		latest, err := s.State().LatestIndex()
		if err != nil {
			return err
		}
		if latest >= index {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("state index %d did not reach %d within %s", latest, index, indexWaitLimit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// workerPlanner is how the scheduler of one evaluation commits: plans go
// to the plan applier, evaluations through raft.
type workerPlanner struct {
	w     *worker
	ctx   context.Context
	eval  *structs.Evaluation
	token string

	// snapshotIndex is the index of the latest state the scheduler read.
	snapshotIndex uint64
}

var _ scheduler.Planner = (*workerPlanner)(nil)

// SubmitPlan implements scheduler.Planner. The evaluation's nack timeout
// stops while the plan waits for the applier.
func (p *workerPlanner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	evals := p.w.srv.evalBroker
	if err := evals.PauseNackTimeout(p.eval.ID, p.token); err != nil {
		return nil, nil, err
	}
	defer func() {
		if err := evals.ResumeNackTimeout(p.eval.ID, p.token); err != nil && !errors.Is(err, broker.ErrDisabled) {
			p.w.logger.Debug("resume nack timeout", "eval_id", p.eval.ID, "error", err)
		}
	}()
	pending, err := p.w.srv.planQueue.Enqueue(plan)
	if err != nil {
		return nil, nil, err
	}
	var out broker.PlanOutcome
	select {
	case out = <-pending.Done:
	case <-p.ctx.Done():
		return nil, nil, p.ctx.Err()
	}
	if out.Err != nil {
		return nil, nil, out.Err
	}
	if out.Result.RefreshIndex == 0 {
		return out.Result, nil, nil
	}
	if err := p.w.srv.waitForIndex(p.ctx, out.Result.RefreshIndex); err != nil {
		return nil, nil, err
	}
	snap, err := p.w.srv.State().Snapshot()
	if err != nil {
		return nil, nil, err
	}
	if p.snapshotIndex, err = snap.LatestIndex(); err != nil {
		return nil, nil, err
	}
	return out.Result, snap, nil
}

// UpdateEval implements scheduler.Planner.
func (p *workerPlanner) UpdateEval(eval *structs.Evaluation) error {
	return p.writeEval(eval.Copy())
}

// CreateEval implements scheduler.Planner. The new evaluation remembers
// the state the scheduler read, so that a blocked one that missed a
// capacity change meanwhile runs again at once.
func (p *workerPlanner) CreateEval(eval *structs.Evaluation) error {
	e := eval.Copy()
	e.SnapshotIndex = p.snapshotIndex
	return p.writeEval(e)
}

// ReblockEval implements scheduler.Planner.
func (p *workerPlanner) ReblockEval(eval *structs.Evaluation) error {
	e := eval.Copy()
	e.SnapshotIndex = p.snapshotIndex
	return p.writeEval(e)
}

func (p *workerPlanner) writeEval(eval *structs.Evaluation) error {
	if _, err := p.w.srv.raftApply(p.ctx, logentry.MsgEvalUpdate, &logentry.EvalUpdate{Evals: []*structs.Evaluation{eval}}); err != nil {
		return fmt.Errorf("write evaluation %s: %w", eval.ID, err)
	}
	return nil
}
