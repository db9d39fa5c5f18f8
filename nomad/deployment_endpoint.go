package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/deploymentwatcher"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// Deployment actions an operator takes.
const (
	DeploymentActionFail        = "fail"
	DeploymentActionPause       = "pause"
	DeploymentActionResume      = "resume"
	DeploymentActionPromote     = "promote"
	DeploymentActionAllocHealth = "allocation-health"
)

// DeploymentUpdateRequest is an operator's change to a deployment: fail,
// pause, resume, promote, or set the health of its allocations.
type DeploymentUpdateRequest struct {
	AuthRequest
	WriteDeadline
	DeploymentID string
	Action       string
	// Healthy and Unhealthy are the allocations of an allocation-health
	// action.
	Healthy   []string `json:",omitempty"`
	Unhealthy []string `json:",omitempty"`
	// Groups are the groups a promote names; none promotes all.
	Groups []string `json:",omitempty"`
}

// DeploymentUpdateResponse reports a change to a deployment.
type DeploymentUpdateResponse struct {
	EvalID                string
	EvalCreateIndex       uint64
	DeploymentModifyIndex uint64
	RevertedJobVersion    *uint64
	Index                 uint64
}

// UpdateDeployment carries out an operator's change to a deployment. It
// needs submit-job in the deployment's namespace, as in Nomad.
func (s *Server) UpdateDeployment(ctx context.Context, req *DeploymentUpdateRequest) (*DeploymentUpdateResponse, error) {
	return userWrite(ctx, s, "Deployment.Update", req, s.allowDeploymentUpdate, s.updateDeploymentLocal)
}

// allowDeploymentUpdate checks submit-job in the deployment's namespace.
// A deployment that does not exist passes: the write then reports that
// it does not.
func (s *Server) allowDeploymentUpdate(a *acl.ACL, req *DeploymentUpdateRequest) error {
	d, err := s.State().DeploymentByID(nil, req.DeploymentID)
	if err != nil || d == nil {
		return err
	}
	return auth.AllocOperation(a, d.Namespace, acl.CapSubmitJob)
}

func (s *Server) updateDeploymentLocal(ctx context.Context, req *DeploymentUpdateRequest) (*DeploymentUpdateResponse, error) {
	if req.DeploymentID == "" {
		return nil, invalidf("deployment %s: missing deployment ID", req.Action)
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	st := s.State()
	d, err := st.DeploymentByID(nil, req.DeploymentID)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("deployment %q: %w", req.DeploymentID, ErrNotFound)
	}
	job, err := st.JobByID(nil, d.Namespace, d.JobID)
	if err != nil {
		return nil, err
	}
	if job == nil {
		return nil, fmt.Errorf("job %q of deployment %q: %w", d.JobID, d.ID, ErrNotFound)
	}
	if !d.Active() {
		return nil, invalidf("deployment %s: can't %s a deployment that is %s", d.ID, req.Action, d.Status)
	}
	now := time.Now()
	switch req.Action {
	case DeploymentActionFail:
		failed, err := deploymentwatcher.Fail(ctx, deploymentCluster{s}, st, d, job, structs.DeploymentDescFailedByUser, now)
		if err != nil {
			return nil, err
		}
		return s.deploymentResponse(d.ID, failed.Eval, failed.RevertedTo)
	case DeploymentActionPause, DeploymentActionResume:
		return s.pauseDeployment(ctx, d, job, req.Action == DeploymentActionPause, now)
	case DeploymentActionPromote:
		return nil, invalidf("deployment %s: no canaries to promote (Drover places no canaries)", d.ID)
	case DeploymentActionAllocHealth:
		return s.setDeploymentAllocHealth(ctx, d, job, req, now)
	default:
		return nil, invalidf("deployment %s: unknown action %q", d.ID, req.Action)
	}
}

// pauseDeployment pauses or resumes a deployment; resuming evaluates the
// job, so that the next step is taken.
func (s *Server) pauseDeployment(ctx context.Context, d *structs.Deployment, job *structs.Job, pause bool, now time.Time) (*DeploymentUpdateResponse, error) {
	updated := d.Copy()
	updated.ModifyTime = now.UnixNano()
	entry := &logentry.DeploymentUpdate{Deployment: updated}
	if pause {
		updated.Status, updated.StatusDescription = structs.DeploymentStatusPaused, structs.DeploymentDescPaused
	} else {
		updated.Status, updated.StatusDescription = structs.DeploymentStatusRunning, structs.DeploymentDescRunning
		entry.Eval = deploymentwatcher.Eval(job, d.ID, now)
	}
	if _, err := s.raftApply(ctx, logentry.MsgDeploymentUpdate, entry); err != nil {
		return nil, err
	}
	return s.deploymentResponse(d.ID, entry.Eval, nil)
}

// setDeploymentAllocHealth records the health an operator set. Every
// allocation named must be one of the deployment's.
func (s *Server) setDeploymentAllocHealth(ctx context.Context, d *structs.Deployment, job *structs.Job, req *DeploymentUpdateRequest, now time.Time) (*DeploymentUpdateResponse, error) {
	if len(req.Healthy)+len(req.Unhealthy) == 0 {
		return nil, invalidf("deployment %s: allocation-health names no allocations", d.ID)
	}
	if d.Status != structs.DeploymentStatusRunning {
		return nil, invalidf("deployment %s: can't set the health of allocations of a deployment that is %s", d.ID, d.Status)
	}
	for _, id := range append(append([]string(nil), req.Healthy...), req.Unhealthy...) {
		a, err := s.State().AllocByID(nil, id)
		if err != nil {
			return nil, err
		}
		if a == nil || a.DeploymentID != d.ID {
			return nil, invalidf("deployment %s: allocation %q is not one of its allocations", d.ID, id)
		}
	}
	entry := &logentry.DeploymentAllocHealth{
		DeploymentID: d.ID,
		Healthy:      req.Healthy,
		Unhealthy:    req.Unhealthy,
		Timestamp:    now,
		Eval:         deploymentwatcher.Eval(job, d.ID, now),
	}
	if _, err := s.raftApply(ctx, logentry.MsgDeploymentAllocHealth, entry); err != nil {
		return nil, err
	}
	return s.deploymentResponse(d.ID, entry.Eval, nil)
}

// deploymentResponse reads back what a change wrote.
func (s *Server) deploymentResponse(id string, eval *structs.Evaluation, reverted *uint64) (*DeploymentUpdateResponse, error) {
	st := s.State()
	resp := &DeploymentUpdateResponse{RevertedJobVersion: reverted}
	d, err := st.DeploymentByID(nil, id)
	if err != nil {
		return nil, err
	}
	if d != nil {
		resp.DeploymentModifyIndex = d.ModifyIndex
	}
	if eval != nil {
		resp.EvalID = eval.ID
		if e, err := st.EvalByID(nil, eval.ID); err == nil && e != nil {
			resp.EvalCreateIndex = e.CreateIndex
		}
	}
	if resp.Index, err = st.LatestIndex(); err != nil {
		return nil, err
	}
	return resp, nil
}

// deploymentRPC serves the deployment writes forwarded by other servers.
type deploymentRPC struct{ srv *Server }

// Update serves UpdateDeployment.
func (e *deploymentRPC) Update(args *DeploymentUpdateRequest, reply *DeploymentUpdateResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.UpdateDeployment(ctx, args))
	})
}
