package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// rollingJobJSON is a service job of count 3 whose group updates one
// allocation at a time, healthy once its task ran for a second. Its task
// runs command with args; a task that exits fails for good (no restarts).
func rollingJobJSON(id string, autoRevert bool, command string, args ...string) map[string]any {
	return map[string]any{
		"ID": id, "Name": id, "Type": "service", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name": "web", "Count": 3,
			"RestartPolicy":    map[string]any{"Attempts": 0, "Mode": "fail"},
			"ReschedulePolicy": map[string]any{"Attempts": 0, "Unlimited": false},
			"Update": map[string]any{
				"MaxParallel": 1, "HealthCheck": "task_states",
				"MinHealthyTime": int64(time.Second), "HealthyDeadline": int64(30 * time.Second),
				"ProgressDeadline": 0, "AutoRevert": autoRevert,
			},
			"Tasks": []any{rawExecTask("web", command, args...)},
		}},
	}
}

// waitDeployment polls the job's latest deployment until it is of
// version and has status.
func waitDeployment(t *testing.T, a *Agent, jobID string, version uint64, status string) *api.Deployment {
	t.Helper()
	var d *api.Deployment
	waitfor.True(t, fmt.Sprintf("job %s: deployment of version %d %s", jobID, version, status), func() bool {
		d = nil
		get(t, a, "/v1/job/"+jobID+"/deployment", &d)
		return d != nil && d.JobVersion == version && d.Status == status
	}, wait.Timeout(90*time.Second), wait.Gap(50*time.Millisecond))
	return d
}

// TestE2E_RollingUpdate updates a running service job of count 3 with
// max_parallel 1: the new version replaces one allocation at a time, each
// step waiting for the previous one to be healthy, and the deployment
// ends successful, its version stable.
func TestE2E_RollingUpdate(t *testing.T) {
	a := testClientAgent(t)
	registerJob(t, a, rollingJobJSON("rolling", false, "/bin/sleep", "1000"))
	first := waitDeployment(t, a, "rolling", 0, api.DeploymentStatusSuccessful)
	must.Eq(t, 3, first.TaskGroups["web"].HealthyAllocs)

	registerJob(t, a, rollingJobJSON("rolling", false, "/bin/sleep", "1001"))
	maxUnhealthy, steps := 0, map[uint64]bool{}
	var d *api.Deployment
	waitfor.True(t, "the rolling update ends", func() bool {
		var stubs []*api.AllocationListStub
		get(t, a, "/v1/job/rolling/allocations", &stubs)
		stopped, healthyNew := 0, 0
		for _, s := range stubs {
			switch {
			case s.JobVersion == 0 && s.DesiredStatus != api.AllocDesiredStatusRun:
				stopped++
			case s.JobVersion == 1:
				steps[s.CreateIndex] = true
				if s.DeploymentStatus != nil && s.DeploymentStatus.Healthy != nil && *s.DeploymentStatus.Healthy {
					healthyNew++
				}
			}
		}
		// Old allocations stopped and not yet replaced by a healthy one.
		maxUnhealthy = max(maxUnhealthy, stopped-healthyNew)
		d = nil
		get(t, a, "/v1/job/rolling/deployment", &d)
		return d != nil && d.JobVersion == 1 && d.Status != api.DeploymentStatusRunning
	}, wait.Timeout(90*time.Second), wait.Gap(20*time.Millisecond))

	must.Eq(t, api.DeploymentStatusSuccessful, d.Status, must.Sprint(d.StatusDescription))
	must.Eq(t, "Deployment completed successfully", d.StatusDescription)
	s := d.TaskGroups["web"]
	must.Eq(t, 3, s.DesiredTotal)
	must.Eq(t, 3, s.PlacedAllocs)
	must.Eq(t, 3, s.HealthyAllocs)
	must.Eq(t, 0, s.UnhealthyAllocs)
	must.LessEq(t, 1, maxUnhealthy, must.Sprint("at most max_parallel allocations replaced at a time"))
	must.MapLen(t, 3, steps, must.Sprint("three steps, one allocation each"))

	var job api.Job
	get(t, a, "/v1/job/rolling", &job)
	must.Eq(t, uint64(1), *job.Version)
	must.True(t, *job.Stable)
	var listed []*api.Deployment
	get(t, a, "/v1/job/rolling/deployments", &listed)
	must.SliceLen(t, 2, listed)
	must.Eq(t, d.ID, listed[0].ID, must.Sprint("newest first"))
}

// TestE2E_RollingUpdateAutoRevert updates a running service job to a
// version whose task fails: its first allocation is unhealthy, the
// deployment fails, and auto_revert registers the stable version again,
// whose own deployment succeeds. The other two allocations of the stable
// version were never replaced.
func TestE2E_RollingUpdateAutoRevert(t *testing.T) {
	a := testClientAgent(t)
	registerJob(t, a, rollingJobJSON("revert", true, "/bin/sleep", "1000"))
	waitDeployment(t, a, "revert", 0, api.DeploymentStatusSuccessful)
	var firstAllocs []*api.AllocationListStub
	get(t, a, "/v1/job/revert/allocations", &firstAllocs)
	must.SliceLen(t, 3, firstAllocs)

	registerJob(t, a, rollingJobJSON("revert", true, "/bin/sh", "-c", "exit 3"))
	failed := waitDeployment(t, a, "revert", 2, api.DeploymentStatusSuccessful)
	must.Eq(t, 3, failed.TaskGroups["web"].HealthyAllocs)

	var listed []*api.Deployment
	get(t, a, "/v1/job/revert/deployments", &listed)
	must.SliceLen(t, 3, listed)
	bad := listed[1]
	must.Eq(t, uint64(1), bad.JobVersion)
	must.Eq(t, api.DeploymentStatusFailed, bad.Status)
	must.Eq(t, "Failed due to unhealthy allocations - rolling back to job version 0", bad.StatusDescription)
	must.Eq(t, 1, bad.TaskGroups["web"].PlacedAllocs, must.Sprint("one step of max_parallel 1, then the failure"))

	var job api.Job
	get(t, a, "/v1/job/revert", &job)
	must.Eq(t, uint64(2), *job.Version)
	must.Eq(t, "/bin/sleep", job.TaskGroups[0].Tasks[0].Config["command"])
	var stubs []*api.AllocationListStub
	get(t, a, "/v1/job/revert/allocations", &stubs)
	kept := 0
	for _, s := range stubs {
		for _, f := range firstAllocs {
			if s.ID == f.ID && s.DesiredStatus == api.AllocDesiredStatusRun {
				must.Eq(t, uint64(2), s.JobVersion, must.Sprint("version 2 is version 0's spec: updated in place"))
				kept++
			}
		}
	}
	must.Eq(t, 2, kept, must.Sprint("the failed step replaced one allocation of version 0 only"))
}
