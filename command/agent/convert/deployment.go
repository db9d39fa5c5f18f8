package convert

import (
	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// DeploymentToAPI converts a deployment; the result shares no memory
// with d.
func DeploymentToAPI(d *structs.Deployment) *api.Deployment {
	if d == nil {
		return nil
	}
	out := &api.Deployment{
		ID:                 d.ID,
		Namespace:          d.Namespace,
		JobID:              d.JobID,
		JobVersion:         d.JobVersion,
		JobModifyIndex:     d.JobModifyIndex,
		JobSpecModifyIndex: d.JobSpecModifyIndex,
		JobCreateIndex:     d.JobCreateIndex,
		TaskGroups:         make(map[string]*api.DeploymentState, len(d.TaskGroups)),
		Status:             d.Status,
		StatusDescription:  d.StatusDescription,
		CreateIndex:        d.CreateIndex,
		ModifyIndex:        d.ModifyIndex,
		CreateTime:         d.CreateTime,
		ModifyTime:         d.ModifyTime,
	}
	for name, s := range d.TaskGroups {
		out.TaskGroups[name] = &api.DeploymentState{
			AutoRevert:        s.AutoRevert,
			ProgressDeadline:  s.ProgressDeadline,
			RequireProgressBy: s.RequireProgressBy,
			Promoted:          s.Promoted,
			DesiredCanaries:   s.DesiredCanaries,
			DesiredTotal:      s.DesiredTotal,
			PlacedAllocs:      s.PlacedAllocs,
			HealthyAllocs:     s.HealthyAllocs,
			UnhealthyAllocs:   s.UnhealthyAllocs,
		}
	}
	return out
}

// DeploymentsToAPI converts deployments; never nil, so that none encodes
// as [].
func DeploymentsToAPI(ds []*structs.Deployment) []*api.Deployment {
	return List(ds, DeploymentToAPI)
}

// AllocDeploymentStatusToAPI converts an allocation's deployment health.
func AllocDeploymentStatusToAPI(s *structs.AllocDeploymentStatus) *api.AllocDeploymentStatus {
	if s == nil {
		return nil
	}
	return &api.AllocDeploymentStatus{
		Healthy:     clonePtr(s.Healthy),
		Timestamp:   s.Timestamp,
		Canary:      s.Canary,
		ModifyIndex: s.ModifyIndex,
	}
}
