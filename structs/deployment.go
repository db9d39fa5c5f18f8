package structs

import (
	"maps"
	"time"
)

// Deployment statuses.
const (
	DeploymentStatusRunning    = "running"
	DeploymentStatusPaused     = "paused"
	DeploymentStatusFailed     = "failed"
	DeploymentStatusSuccessful = "successful"
	DeploymentStatusCancelled  = "cancelled"
)

// Deployment status descriptions, as Nomad words them.
const (
	DeploymentDescRunning          = "Deployment is running"
	DeploymentDescPaused           = "Deployment is paused"
	DeploymentDescSuccessful       = "Deployment completed successfully"
	DeploymentDescStoppedJob       = "Cancelled because job is stopped"
	DeploymentDescNewerJob         = "Cancelled due to newer version of job"
	DeploymentDescFailedAllocs     = "Failed due to unhealthy allocations"
	DeploymentDescProgressDeadline = "Failed due to progress deadline"
	DeploymentDescFailedByUser     = "Deployment marked as failed"
)

// DeploymentDescRollback is desc followed by the rollback it caused.
func DeploymentDescRollback(desc string, version uint64) string {
	return desc + " - rolling back to job version " + itoa(version)
}

// DeploymentDescNoRollback is desc when auto_revert found no stable
// version to go back to.
func DeploymentDescNoRollback(desc string) string {
	return desc + " - no stable job version to auto revert to"
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

// Deployment is the rollout of one job version over the groups whose
// update block is rolling: the scheduler replaces at most max_parallel of
// a group's allocations at a time, and the next step waits until those
// are healthy.
type Deployment struct {
	ID                 string
	Namespace          string
	JobID              string
	JobVersion         uint64
	JobModifyIndex     uint64
	JobSpecModifyIndex uint64
	JobCreateIndex     uint64
	TaskGroups         map[string]*DeploymentState
	Status             string
	StatusDescription  string
	CreateIndex        uint64
	ModifyIndex        uint64
	CreateTime         int64
	ModifyTime         int64
}

// DeploymentState is one group's progress in a deployment.
type DeploymentState struct {
	AutoRevert       bool
	AutoPromote      bool
	ProgressDeadline time.Duration
	// RequireProgressBy is when the deployment fails unless another
	// allocation became healthy; zero without a progress deadline.
	RequireProgressBy time.Time
	Promoted          bool
	DesiredCanaries   int
	DesiredTotal      int
	PlacedAllocs      int
	HealthyAllocs     int
	UnhealthyAllocs   int
}

// Active reports whether the deployment still paces its job's updates.
func (d *Deployment) Active() bool {
	return d != nil && (d.Status == DeploymentStatusRunning || d.Status == DeploymentStatusPaused)
}

// Copy returns a deep copy of the deployment.
func (d *Deployment) Copy() *Deployment {
	if d == nil {
		return nil
	}
	c := *d
	c.TaskGroups = maps.Clone(d.TaskGroups)
	for name, s := range c.TaskGroups {
		c.TaskGroups[name] = clonePtr(s)
	}
	return &c
}

// HasAutoRevert reports whether a group of the deployment asks for
// auto_revert.
func (d *Deployment) HasAutoRevert() bool {
	for _, s := range d.TaskGroups {
		if s.AutoRevert {
			return true
		}
	}
	return false
}

// AllocDeploymentStatus is an allocation's health in its deployment.
// Healthy is nil until the client (or, with health_check = "manual", an
// operator) decides.
type AllocDeploymentStatus struct {
	Healthy     *bool
	Timestamp   time.Time
	Canary      bool
	ModifyIndex uint64
}

// IsHealthy reports whether the allocation was found healthy.
func (s *AllocDeploymentStatus) IsHealthy() bool {
	return s != nil && s.Healthy != nil && *s.Healthy
}

// IsUnhealthy reports whether the allocation was found unhealthy.
func (s *AllocDeploymentStatus) IsUnhealthy() bool {
	return s != nil && s.Healthy != nil && !*s.Healthy
}

// HasHealth reports whether the allocation's health was decided.
func (s *AllocDeploymentStatus) HasHealth() bool {
	return s != nil && s.Healthy != nil
}

// Copy returns a deep copy of the status.
func (s *AllocDeploymentStatus) Copy() *AllocDeploymentStatus {
	if s == nil {
		return nil
	}
	c := *s
	c.Healthy = clonePtr(s.Healthy)
	return &c
}

// DeploymentStatusUpdate changes the status of a stored deployment.
type DeploymentStatusUpdate struct {
	DeploymentID      string
	Status            string
	StatusDescription string
}
