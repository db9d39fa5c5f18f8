package deployment

import (
	"time"

	"github.com/drover-io/drover/structs"
)

// Decision is what one scheduler run decides about a job's deployments.
type Decision struct {
	job *structs.Job
	now time.Time

	// current is the deployment of the job version being placed: the
	// stored one, or the one this run creates; nil when there is none.
	current *structs.Deployment
	// created is set when current is new in this run.
	created bool
	// ended are status changes of deployments the run ends.
	ended []*structs.DeploymentStatusUpdate
}

// Decide reads the job's latest deployment. A deployment of another
// version (or of an earlier job of the same ID) still active is
// cancelled: a new version supersedes it, and a stopped job ends it.
// job may be nil (purged).
func Decide(job *structs.Job, latest *structs.Deployment, now time.Time) *Decision {
	d := &Decision{job: job, now: now}
	if latest == nil {
		return d
	}
	sameVersion := job != nil && latest.JobVersion == job.Version && latest.JobCreateIndex == job.CreateIndex
	switch {
	case job == nil || job.Stop:
		if latest.Active() {
			d.end(latest, structs.DeploymentStatusCancelled, structs.DeploymentDescStoppedJob)
		}
	case !sameVersion:
		if latest.Active() {
			d.end(latest, structs.DeploymentStatusCancelled, structs.DeploymentDescNewerJob)
		}
	default:
		d.current = latest
	}
	return d
}

func (d *Decision) end(dep *structs.Deployment, status, desc string) {
	d.ended = append(d.ended, &structs.DeploymentStatusUpdate{DeploymentID: dep.ID, Status: status, StatusDescription: desc})
}

// Created returns the deployment the run creates, for the plan; nil when
// it creates none.
func (d *Decision) Created() *structs.Deployment {
	if !d.created {
		return nil
	}
	return d.current
}

// Ended returns the status changes of the deployments the run ends.
func (d *Decision) Ended() []*structs.DeploymentStatusUpdate {
	return d.ended
}

// Unlimited is the allowance of a group that is not paced.
const Unlimited = int(^uint(0) >> 1)

// rolling reports whether the group's updates are paced by a deployment.
func (d *Decision) rolling(tg *structs.TaskGroup) bool {
	return d.job != nil && structs.UsesDeployments(d.job.Type) && tg.Update.Rolling()
}

// Allowance returns how many of the group's allocations of older job
// versions may be replaced (destructively) now. A group that is not
// rolling has no limit. Otherwise: none while the deployment is paused,
// or after it failed or was cancelled (the older allocations keep
// running until a newer version, or a revert, comes); else max_parallel
// less the group's allocations in the deployment that still run and are
// not yet healthy. allocs are the group's allocations.
func (d *Decision) Allowance(tg *structs.TaskGroup, allocs []*structs.Allocation) int {
	if !d.rolling(tg) {
		return Unlimited
	}
	dep := d.current
	if dep == nil {
		return tg.Update.MaxParallel // the first step of a new deployment
	}
	if dep.Status != structs.DeploymentStatusRunning && dep.Status != structs.DeploymentStatusSuccessful {
		return 0
	}
	if Failing(dep.ID, tg.Name, allocs) {
		return 0 // the deployment watcher is about to fail it
	}
	return max(0, tg.Update.MaxParallel-InFlight(dep.ID, tg.Name, allocs))
}

// Failing reports whether an allocation of the group in the deployment
// was found unhealthy, or failed before its health was decided: no more
// of the group is replaced, whether or not the deployment was failed yet.
func Failing(deploymentID, group string, allocs []*structs.Allocation) bool {
	for _, a := range allocs {
		if a.DeploymentID != deploymentID || a.TaskGroup != group {
			continue
		}
		if a.DeploymentStatus.IsUnhealthy() ||
			(a.ClientStatus == structs.AllocClientStatusFailed && !a.DeploymentStatus.IsHealthy()) {
			return true
		}
	}
	return false
}

// InFlight counts the group's allocations of the deployment that are to
// run and not yet healthy.
func InFlight(deploymentID, group string, allocs []*structs.Allocation) int {
	n := 0
	for _, a := range allocs {
		if a.DeploymentID != deploymentID || a.TaskGroup != group {
			continue
		}
		if a.DesiredStatus != structs.AllocDesiredStatusRun || a.ClientTerminalStatus() {
			continue
		}
		if !a.DeploymentStatus.IsHealthy() {
			n++
		}
	}
	return n
}

// ID returns the deployment that a placement (or in-place update) of
// the group in this run belongs to, creating the version's deployment
// when it has none; "" when the group is not rolling or the deployment
// no longer runs (a replacement after it ended belongs to none).
// desired is the group's number of allocations, for the deployment's
// DesiredTotal.
func (d *Decision) ID(tg *structs.TaskGroup, desired int) string {
	if !d.rolling(tg) {
		return ""
	}
	if d.current == nil {
		d.current = d.newDeployment()
		d.created = true
	}
	dep := d.current
	if dep.Status != structs.DeploymentStatusRunning {
		return ""
	}
	if _, ok := dep.TaskGroups[tg.Name]; !ok && d.created {
		dep.TaskGroups[tg.Name] = d.groupState(tg, desired)
	}
	if _, ok := dep.TaskGroups[tg.Name]; !ok {
		return "" // a group the deployment did not start with
	}
	return dep.ID
}

// SetDesired records the group's number of allocations in a deployment
// this run creates (a system job knows it only once it has placed).
func (d *Decision) SetDesired(group string, desired int) {
	if !d.created {
		return
	}
	if s, ok := d.current.TaskGroups[group]; ok {
		s.DesiredTotal = desired
	}
}

func (d *Decision) newDeployment() *structs.Deployment {
	return &structs.Deployment{
		ID:                 structs.GenerateUUID(),
		Namespace:          d.job.Namespace,
		JobID:              d.job.ID,
		JobVersion:         d.job.Version,
		JobModifyIndex:     d.job.ModifyIndex,
		JobSpecModifyIndex: d.job.JobModifyIndex,
		JobCreateIndex:     d.job.CreateIndex,
		TaskGroups:         make(map[string]*structs.DeploymentState),
		Status:             structs.DeploymentStatusRunning,
		StatusDescription:  structs.DeploymentDescRunning,
		CreateTime:         d.now.UnixNano(),
	}
}

func (d *Decision) groupState(tg *structs.TaskGroup, desired int) *structs.DeploymentState {
	s := &structs.DeploymentState{
		AutoRevert:       tg.Update.AutoRevert,
		AutoPromote:      tg.Update.AutoPromote,
		ProgressDeadline: tg.Update.ProgressDeadline,
		DesiredTotal:     desired,
	}
	if s.ProgressDeadline > 0 {
		s.RequireProgressBy = d.now.Add(s.ProgressDeadline)
	}
	return s
}
