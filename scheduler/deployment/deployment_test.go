package deployment

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func job(version uint64, maxParallel int) *structs.Job {
	return &structs.Job{
		ID: "web", Namespace: "default", Type: structs.JobTypeService, Version: version, CreateIndex: 7,
		TaskGroups: []*structs.TaskGroup{{Name: "g", Count: 4, Update: &structs.UpdateStrategy{
			MaxParallel: maxParallel, HealthCheck: structs.UpdateHealthTaskStates, HealthyDeadline: time.Minute,
			ProgressDeadline: 10 * time.Minute, AutoRevert: true,
		}}},
	}
}

func placed(deploymentID string, healthy *bool, status string) *structs.Allocation {
	a := &structs.Allocation{TaskGroup: "g", DeploymentID: deploymentID, DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: status}
	if healthy != nil {
		a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: healthy}
	}
	return a
}

func TestDecide_newDeployment(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	j := job(3, 2)
	d := Decide(j, nil, now)
	tg := j.TaskGroups[0]
	must.Eq(t, 2, d.Allowance(tg, nil))
	must.Nil(t, d.Created(), must.Sprint("created only once something is placed"))
	id := d.ID(tg, tg.Count)
	must.NotEq(t, "", id)
	dep := d.Created()
	must.Eq(t, id, dep.ID)
	must.Eq(t, uint64(3), dep.JobVersion)
	must.Eq(t, structs.DeploymentStatusRunning, dep.Status)
	s := dep.TaskGroups["g"]
	must.Eq(t, 4, s.DesiredTotal)
	must.True(t, s.AutoRevert)
	must.Eq(t, now.Add(10*time.Minute), s.RequireProgressBy)
	must.Eq(t, id, d.ID(tg, tg.Count), must.Sprint("one deployment per run"))
}

func TestDecide_endsOthers(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	older := &structs.Deployment{ID: "old", JobVersion: 2, JobCreateIndex: 7, Status: structs.DeploymentStatusRunning}
	d := Decide(job(3, 1), older, now)
	must.SliceLen(t, 1, d.Ended())
	must.Eq(t, structs.DeploymentDescNewerJob, d.Ended()[0].StatusDescription)

	stopped := job(2, 1)
	stopped.Stop = true
	d = Decide(stopped, &structs.Deployment{ID: "cur", JobVersion: 2, JobCreateIndex: 7, Status: structs.DeploymentStatusPaused}, now)
	must.Eq(t, structs.DeploymentDescStoppedJob, d.Ended()[0].StatusDescription)

	d = Decide(job(2, 1), &structs.Deployment{ID: "done", JobVersion: 2, JobCreateIndex: 7, Status: structs.DeploymentStatusFailed}, now)
	must.SliceEmpty(t, d.Ended())
}

func TestAllowance(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	yes, no := true, false
	running := structs.AllocClientStatusRunning
	cur := func(status string) *structs.Deployment {
		return &structs.Deployment{ID: "d", JobVersion: 3, JobCreateIndex: 7, Status: status,
			TaskGroups: map[string]*structs.DeploymentState{"g": {DesiredTotal: 4}}}
	}
	j := job(3, 2)
	tg := j.TaskGroups[0]
	cases := []struct {
		name   string
		status string
		allocs []*structs.Allocation
		want   int
	}{
		{"nothing in flight", structs.DeploymentStatusRunning, nil, 2},
		{"one in flight", structs.DeploymentStatusRunning, []*structs.Allocation{placed("d", nil, running), placed("d", &yes, running)}, 1},
		{"all in flight", structs.DeploymentStatusRunning, []*structs.Allocation{placed("d", nil, running), placed("d", nil, running)}, 0},
		{"an unhealthy one", structs.DeploymentStatusRunning, []*structs.Allocation{placed("d", &no, running)}, 0},
		{"a failed one", structs.DeploymentStatusRunning, []*structs.Allocation{placed("d", nil, structs.AllocClientStatusFailed)}, 0},
		{"another deployment's", structs.DeploymentStatusRunning, []*structs.Allocation{placed("x", nil, running)}, 2},
		{"paused", structs.DeploymentStatusPaused, nil, 0},
		{"failed", structs.DeploymentStatusFailed, nil, 0},
		{"cancelled", structs.DeploymentStatusCancelled, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(j, cur(tc.status), now)
			must.Eq(t, tc.want, d.Allowance(tg, tc.allocs))
		})
	}

	t.Run("not rolling", func(t *testing.T) {
		batch := job(3, 1)
		batch.Type = structs.JobTypeBatch
		must.Eq(t, Unlimited, Decide(batch, nil, now).Allowance(batch.TaskGroups[0], nil))
		noUpdate := job(3, 0)
		must.Eq(t, Unlimited, Decide(noUpdate, nil, now).Allowance(noUpdate.TaskGroups[0], nil))
		must.Eq(t, "", Decide(noUpdate, nil, now).ID(noUpdate.TaskGroups[0], 4))
	})
}
