package logentry

import (
	"time"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// DeploymentUpdate writes a deployment's progress or status, as the
// deployment watcher or an operator (fail, pause, resume) changed it,
// with the evaluation that acts on it. A successful deployment marks its
// job version stable.
type DeploymentUpdate struct {
	Deployment *structs.Deployment
	Eval       *structs.Evaluation `json:",omitempty"`
}

func (e *DeploymentUpdate) MessageType() MessageType { return MsgDeploymentUpdate }

func (e *DeploymentUpdate) Validate() error {
	d := e.Deployment
	switch {
	case d == nil:
		return invalidf("deployment update: no deployment")
	case d.ID == "" || d.Namespace == "" || d.JobID == "":
		return invalidf("deployment update: the deployment needs an ID, a namespace and a job ID")
	}
	switch d.Status {
	case structs.DeploymentStatusRunning, structs.DeploymentStatusPaused, structs.DeploymentStatusFailed,
		structs.DeploymentStatusSuccessful, structs.DeploymentStatusCancelled:
	default:
		return invalidf("deployment update: unknown status %q", d.Status)
	}
	if e.Eval != nil {
		return validateEvals([]*structs.Evaluation{e.Eval})
	}
	return nil
}

func (e *DeploymentUpdate) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.UpdateDeploymentProgress(index, e.Deployment); err != nil {
		return err
	}
	if e.Eval == nil {
		return nil
	}
	return s.UpsertEvals(index, []*structs.Evaluation{e.Eval})
}

func (e *DeploymentUpdate) WrittenEvals() []*structs.Evaluation {
	if e.Eval == nil {
		return nil
	}
	return []*structs.Evaluation{e.Eval}
}

// DeploymentAllocHealth records the health an operator set for
// allocations of a deployment (health_check = "manual"), with the
// evaluation that moves the deployment on.
type DeploymentAllocHealth struct {
	DeploymentID string
	Healthy      []string `json:",omitempty"`
	Unhealthy    []string `json:",omitempty"`
	Timestamp    time.Time
	Eval         *structs.Evaluation `json:",omitempty"`
}

func (e *DeploymentAllocHealth) MessageType() MessageType { return MsgDeploymentAllocHealth }

func (e *DeploymentAllocHealth) Validate() error {
	if e.DeploymentID == "" {
		return invalidf("deployment alloc health: no deployment ID")
	}
	if len(e.Healthy)+len(e.Unhealthy) == 0 {
		return invalidf("deployment alloc health: no allocations")
	}
	if e.Eval != nil {
		return validateEvals([]*structs.Evaluation{e.Eval})
	}
	return nil
}

func (e *DeploymentAllocHealth) ApplyTo(s *state.StateStore, index uint64) error {
	if err := s.SetAllocDeploymentHealth(index, e.DeploymentID, e.Healthy, e.Unhealthy, e.Timestamp); err != nil {
		return err
	}
	if e.Eval == nil {
		return nil
	}
	return s.UpsertEvals(index, []*structs.Evaluation{e.Eval})
}

func (e *DeploymentAllocHealth) WrittenEvals() []*structs.Evaluation {
	if e.Eval == nil {
		return nil
	}
	return []*structs.Evaluation{e.Eval}
}
