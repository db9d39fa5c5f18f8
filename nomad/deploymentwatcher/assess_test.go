package deploymentwatcher

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func deployment(desired int, progress time.Duration, by time.Time) *structs.Deployment {
	return &structs.Deployment{
		ID: "d1", Namespace: "default", JobID: "web", JobVersion: 1,
		Status: structs.DeploymentStatusRunning,
		TaskGroups: map[string]*structs.DeploymentState{"g": {
			DesiredTotal: desired, ProgressDeadline: progress, RequireProgressBy: by,
		}},
	}
}

func alloc(deploymentID string, version uint64, healthy *bool, at time.Time) *structs.Allocation {
	a := &structs.Allocation{
		ID: structs.GenerateUUID(), TaskGroup: "g", DeploymentID: deploymentID,
		Job:           &structs.Job{Version: version},
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
	}
	if healthy != nil {
		a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: healthy, Timestamp: at}
	}
	return a
}

func TestAssess(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	yes, no := true, false
	old := alloc("", 0, nil, time.Time{})

	t.Run("progress creates a step and moves the deadline", func(t *testing.T) {
		d := deployment(3, time.Minute, now.Add(time.Second))
		p := Assess(d, []*structs.Allocation{alloc("d1", 1, &yes, now.Add(-time.Second)), alloc("d1", 1, nil, time.Time{}), old}, now)
		must.Eq(t, "", p.Failed)
		must.True(t, p.Changed)
		must.True(t, p.Progressed)
		s := p.Deployment.TaskGroups["g"]
		must.Eq(t, 2, s.PlacedAllocs)
		must.Eq(t, 1, s.HealthyAllocs)
		must.Eq(t, now.Add(-time.Second).Add(time.Minute), s.RequireProgressBy)
		must.Eq(t, s.RequireProgressBy, p.NextDeadline)
		must.Eq(t, structs.DeploymentStatusRunning, p.Deployment.Status)
		must.Eq(t, 0, d.TaskGroups["g"].HealthyAllocs, must.Sprint("the stored deployment is not modified"))
	})
	t.Run("an unhealthy allocation fails it", func(t *testing.T) {
		p := Assess(deployment(3, 0, time.Time{}), []*structs.Allocation{alloc("d1", 1, &no, now), old}, now)
		must.Eq(t, structs.DeploymentDescFailedAllocs, p.Failed)
		must.Eq(t, 1, p.Deployment.TaskGroups["g"].UnhealthyAllocs)
	})
	t.Run("a missed progress deadline fails it", func(t *testing.T) {
		p := Assess(deployment(3, time.Minute, now), []*structs.Allocation{alloc("d1", 1, nil, time.Time{}), old}, now)
		must.Eq(t, structs.DeploymentDescProgressDeadline, p.Failed)
	})
	t.Run("an older allocation left keeps it running", func(t *testing.T) {
		p := Assess(deployment(1, 0, time.Time{}), []*structs.Allocation{alloc("d1", 1, &yes, now), old}, now)
		must.Eq(t, structs.DeploymentStatusRunning, p.Deployment.Status)
	})
	t.Run("all healthy and no older allocation: successful", func(t *testing.T) {
		stopped := alloc("", 0, nil, time.Time{})
		stopped.DesiredStatus = structs.AllocDesiredStatusStop
		p := Assess(deployment(2, time.Minute, now.Add(time.Minute)),
			[]*structs.Allocation{alloc("d1", 1, &yes, now), alloc("d1", 1, &yes, now), stopped}, now)
		must.Eq(t, "", p.Failed)
		must.Eq(t, structs.DeploymentStatusSuccessful, p.Deployment.Status)
		must.Eq(t, structs.DeploymentDescSuccessful, p.Deployment.StatusDescription)
		must.True(t, p.NextDeadline.IsZero())
	})
	t.Run("nothing new: unchanged", func(t *testing.T) {
		d := deployment(3, 0, time.Time{})
		d.TaskGroups["g"].PlacedAllocs = 1
		p := Assess(d, []*structs.Allocation{alloc("d1", 1, nil, time.Time{}), old}, now)
		must.False(t, p.Changed)
		must.False(t, p.Progressed)
	})
}
