package deploymentwatcher

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// retry is how soon the watcher looks again after a failed write.
const retry = time.Second

// Cluster is what the watcher needs of the server, on the leader.
type Cluster interface {
	// State is the server's current state store.
	State() *state.StateStore
	// Apply commits a log entry through raft.
	Apply(ctx context.Context, t logentry.MessageType, entry logentry.Entry) error
	// Revert registers the job again as it was at version, provided it is
	// still at jobModifyIndex.
	Revert(ctx context.Context, namespace, jobID string, version, jobModifyIndex uint64) error
}

// Watcher moves the running deployments on.
type Watcher struct {
	cluster Cluster
	logger  hclog.Logger
	now     func() time.Time
}

// New returns a watcher that acts on cluster.
func New(cluster Cluster, logger hclog.Logger) *Watcher {
	return &Watcher{cluster: cluster, logger: logger.Named("deployment_watcher"), now: time.Now}
}

// Run watches until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	for {
		ws := memdb.NewWatchSet()
		wait, err := w.step(ctx, ws)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.logger.Warn("watch deployments", "error", err)
			wait = retry
		}
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if wait > 0 {
			wctx, cancel = context.WithTimeout(ctx, wait)
		}
		_ = ws.WatchCtx(wctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
	}
}

// step acts on every running deployment once and returns how long until
// the next progress deadline (0: none), having added what it read to ws.
func (w *Watcher) step(ctx context.Context, ws memdb.WatchSet) (time.Duration, error) {
	st := w.cluster.State()
	ws.Add(st.AbandonCh())
	ds, err := st.ActiveDeployments(ws)
	if err != nil {
		return 0, err
	}
	var next time.Time
	for _, d := range ds {
		if d.Status != structs.DeploymentStatusRunning {
			continue
		}
		deadline, err := w.watchOne(ctx, st, ws, d)
		if err != nil {
			return 0, fmt.Errorf("deployment %s: %w", d.ID, err)
		}
		if !deadline.IsZero() && (next.IsZero() || deadline.Before(next)) {
			next = deadline
		}
	}
	if next.IsZero() {
		return 0, nil
	}
	return max(next.Sub(w.now()), time.Millisecond), nil
}

// watchOne acts on one running deployment and returns its next progress
// deadline.
func (w *Watcher) watchOne(ctx context.Context, st *state.StateStore, ws memdb.WatchSet, d *structs.Deployment) (time.Time, error) {
	allocs, err := st.AllocsByJob(ws, d.Namespace, d.JobID)
	if err != nil {
		return time.Time{}, err
	}
	job, err := st.JobByID(ws, d.Namespace, d.JobID)
	if err != nil {
		return time.Time{}, err
	}
	if job == nil {
		// The scheduler cancels a purged job's deployment with its
		// last plan; nothing is left to pace.
		return time.Time{}, nil
	}
	p := Assess(d, allocs, w.now())
	switch {
	case p.Failed != "":
		return time.Time{}, w.fail(ctx, st, p.Deployment, job, p.Failed)
	case p.Changed:
		entry := &logentry.DeploymentUpdate{Deployment: p.Deployment}
		if p.Progressed || p.Deployment.Status == structs.DeploymentStatusSuccessful {
			entry.Eval = Eval(job, d.ID, w.now())
		}
		return p.NextDeadline, w.cluster.Apply(ctx, logentry.MsgDeploymentUpdate, entry)
	}
	return p.NextDeadline, nil
}

// fail writes the deployment failed and, when a group asks for
// auto_revert, registers the job again at its latest stable version.
func (w *Watcher) fail(ctx context.Context, st *state.StateStore, d *structs.Deployment, job *structs.Job, desc string) error {
	_, err := Fail(ctx, w.cluster, st, d, job, desc, w.now())
	return err
}

// Fail ends a deployment as failed with desc, and reverts its job when a
// group asks for auto_revert and a stable version older than the
// deployment's exists; the description says which. job is the current
// job. It serves the watcher and an operator's fail alike, and returns
// the version reverted to, if any, and the evaluation it created, if any.
func Fail(ctx context.Context, cluster Cluster, st *state.StateStore, d *structs.Deployment, job *structs.Job, desc string, now time.Time) (*Failed, error) {
	failed := d.Copy()
	failed.Status = structs.DeploymentStatusFailed
	failed.ModifyTime = now.UnixNano()
	var revertTo *structs.Job
	if d.HasAutoRevert() && job.Version == d.JobVersion {
		var err error
		if revertTo, err = latestStable(st, d); err != nil {
			return nil, err
		}
		if revertTo == nil {
			desc = structs.DeploymentDescNoRollback(desc)
		} else {
			desc = structs.DeploymentDescRollback(desc, revertTo.Version)
		}
	}
	failed.StatusDescription = desc
	entry := &logentry.DeploymentUpdate{Deployment: failed}
	if revertTo == nil {
		// Nothing else will run the job: let the scheduler see that its
		// deployment ended.
		entry.Eval = Eval(job, d.ID, now)
	}
	if err := cluster.Apply(ctx, logentry.MsgDeploymentUpdate, entry); err != nil {
		return nil, err
	}
	if revertTo == nil {
		return &Failed{Eval: entry.Eval}, nil
	}
	v := revertTo.Version
	if err := cluster.Revert(ctx, d.Namespace, d.JobID, v, job.JobModifyIndex); err != nil {
		return nil, fmt.Errorf("auto revert to version %d: %w", v, err)
	}
	return &Failed{RevertedTo: &v}, nil
}

// Failed is what failing a deployment did besides.
type Failed struct {
	// RevertedTo is the job version registered again, if any.
	RevertedTo *uint64
	// Eval is the evaluation created, if any (none when the revert's
	// registration made one).
	Eval *structs.Evaluation
}

// latestStable returns the newest stable version of the job older than
// the deployment's, or nil.
func latestStable(st *state.StateStore, d *structs.Deployment) (*structs.Job, error) {
	versions, err := st.JobVersionsByID(nil, d.Namespace, d.JobID)
	if err != nil {
		return nil, err
	}
	for _, v := range versions { // newest first
		if v.Version < d.JobVersion && v.Stable {
			return v, nil
		}
	}
	return nil, nil
}

// Eval is an evaluation of the job that a deployment's progress calls
// for.
func Eval(job *structs.Job, deploymentID string, now time.Time) *structs.Evaluation {
	return &structs.Evaluation{
		ID:             structs.GenerateUUID(),
		Namespace:      job.Namespace,
		Priority:       job.Priority,
		Type:           job.Type,
		TriggeredBy:    structs.EvalTriggerDeploymentWatcher,
		JobID:          job.ID,
		JobModifyIndex: job.JobModifyIndex,
		DeploymentID:   deploymentID,
		Status:         structs.EvalStatusPending,
		CreateTime:     now.UnixNano(),
		ModifyTime:     now.UnixNano(),
	}
}
