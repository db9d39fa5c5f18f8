package scheduler

import (
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// rollingJob is a job whose groups update maxParallel at a time.
func rollingJob(jobType string, count, maxParallel int) *structs.Job {
	job := mockJob(jobType, count)
	job.TaskGroups[0].Update = &structs.UpdateStrategy{
		MaxParallel:      maxParallel,
		HealthCheck:      structs.UpdateHealthTaskStates,
		MinHealthyTime:   time.Second,
		HealthyDeadline:  time.Minute,
		ProgressDeadline: 10 * time.Minute,
	}
	return job
}

// latestDeployment returns the job's newest deployment.
func (h *harness) latestDeployment(job *structs.Job) *structs.Deployment {
	h.t.Helper()
	d, err := h.store.LatestDeploymentByJob(nil, job.Namespace, job.ID)
	must.NoError(h.t, err)
	return d
}

// markHealthy reports allocations running and healthy in their
// deployment.
func (h *harness) markHealthy(allocs ...*structs.Allocation) {
	h.t.Helper()
	h.setClientStatus(structs.AllocClientStatusRunning, time.Time{}, allocs...)
	byDeployment := map[string][]string{}
	for _, a := range allocs {
		byDeployment[a.DeploymentID] = append(byDeployment[a.DeploymentID], a.ID)
	}
	for id, ids := range byDeployment {
		must.NoError(h.t, h.store.SetAllocDeploymentHealth(h.nextIndex(), id, ids, nil, h.now))
	}
}

// ofVersion returns the live allocations that run version v.
func ofVersion(allocs []*structs.Allocation, v uint64) []*structs.Allocation {
	var out []*structs.Allocation
	for _, a := range allocs {
		if a.Job.Version == v {
			out = append(out, a)
		}
	}
	return out
}

func TestDeployment_rollingServiceMaxParallel(t *testing.T) {
	h := newHarness(t)
	h.addNodes(6, nil)
	job := h.runJob(rollingJob(structs.JobTypeService, 5, 2))

	first := h.latestDeployment(job)
	must.NotNil(t, first, must.Sprint("the first version is placed by a deployment too"))
	must.Eq(t, job.Version, first.JobVersion)
	must.Eq(t, 5, first.TaskGroups["g"].DesiredTotal)
	must.SliceLen(t, 5, h.liveAllocs(job), must.Sprint("a new job is placed at once"))
	for _, a := range h.allocs(job) {
		must.Eq(t, first.ID, a.DeploymentID)
	}
	h.markHealthy(h.allocs(job)...)
	must.NoError(t, h.store.UpdateDeploymentStatuses(h.nextIndex(), []*structs.DeploymentStatusUpdate{{
		DeploymentID: first.ID, Status: structs.DeploymentStatusSuccessful, StatusDescription: structs.DeploymentDescSuccessful,
	}}, h.now.UnixNano()))

	next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "1h"} })
	replaced := 0
	for step := 1; step <= 3; step++ {
		h.process(mockEval(next, structs.EvalTriggerJobRegister))
		placed := planAllocs(h.lastPlan().NodeAllocation)
		want := min(2, 5-replaced)
		must.SliceLen(t, want, placed, must.Sprintf("step %d replaces max_parallel at most", step))
		must.SliceLen(t, want, planAllocs(h.lastPlan().NodeUpdate))
		replaced += want

		dep := h.latestDeployment(next)
		must.Eq(t, next.Version, dep.JobVersion)
		must.Eq(t, structs.DeploymentStatusRunning, dep.Status)
		for _, a := range placed {
			must.Eq(t, dep.ID, a.DeploymentID)
		}

		// Until those are healthy, nothing more is replaced.
		plans := len(h.plans)
		h.process(mockEval(next, structs.EvalTriggerJobRegister))
		must.Eq(t, plans, len(h.plans), must.Sprintf("step %d: no plan while the step is unhealthy", step))

		live := h.liveAllocs(next)
		must.SliceLen(t, 5, live)
		must.SliceLen(t, replaced, ofVersion(live, next.Version))
		h.markHealthy(ofVersion(live, next.Version)...)
	}
	must.SliceLen(t, 5, ofVersion(h.liveAllocs(next), next.Version))
	ds, err := h.store.DeploymentsByJob(nil, next.Namespace, next.ID)
	must.NoError(t, err)
	must.SliceLen(t, 2, ds)
}

func TestDeployment_pausedAndFailedStopReplacing(t *testing.T) {
	for _, status := range []string{structs.DeploymentStatusPaused, structs.DeploymentStatusFailed} {
		t.Run(status, func(t *testing.T) {
			h := newHarness(t)
			h.addNodes(4, nil)
			job := h.runJob(rollingJob(structs.JobTypeService, 3, 1))
			h.markHealthy(h.allocs(job)...)
			next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "1h"} })
			h.process(mockEval(next, structs.EvalTriggerJobRegister))
			must.SliceLen(t, 1, planAllocs(h.lastPlan().NodeAllocation))
			dep := h.latestDeployment(next)
			h.markHealthy(ofVersion(h.liveAllocs(next), next.Version)...)

			must.NoError(t, h.store.UpdateDeploymentStatuses(h.nextIndex(), []*structs.DeploymentStatusUpdate{{
				DeploymentID: dep.ID, Status: status,
			}}, h.now.UnixNano()))
			plans := len(h.plans)
			h.process(mockEval(next, structs.EvalTriggerJobRegister))
			must.Eq(t, plans, len(h.plans), must.Sprint("no step while the deployment is not running"))
			must.SliceLen(t, 2, ofVersion(h.liveAllocs(next), job.Version))
		})
	}
}

func TestDeployment_newerVersionCancelsActive(t *testing.T) {
	h := newHarness(t)
	h.addNodes(4, nil)
	job := h.runJob(rollingJob(structs.JobTypeService, 3, 1))
	first := h.latestDeployment(job)
	must.Eq(t, structs.DeploymentStatusRunning, first.Status)

	next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "1h"} })
	h.process(mockEval(next, structs.EvalTriggerJobRegister))
	plan := h.lastPlan()
	must.SliceLen(t, 1, plan.DeploymentUpdates)
	must.Eq(t, first.ID, plan.DeploymentUpdates[0].DeploymentID)
	must.Eq(t, structs.DeploymentStatusCancelled, plan.DeploymentUpdates[0].Status)
	must.Eq(t, structs.DeploymentDescNewerJob, plan.DeploymentUpdates[0].StatusDescription)
	cancelled, err := h.store.DeploymentByID(nil, first.ID)
	must.NoError(t, err)
	must.Eq(t, structs.DeploymentStatusCancelled, cancelled.Status)
	must.NotNil(t, plan.Deployment)
	must.Eq(t, next.Version, plan.Deployment.JobVersion)
}

func TestDeployment_systemMaxParallel(t *testing.T) {
	h := newHarness(t)
	h.addNodes(4, nil)
	job := h.runJob(rollingJob(structs.JobTypeSystem, 1, 1))
	must.SliceLen(t, 4, h.liveAllocs(job))
	must.Eq(t, 4, h.latestDeployment(job).TaskGroups["g"].DesiredTotal)
	h.markHealthy(h.allocs(job)...)
	must.NoError(t, h.store.UpdateDeploymentStatuses(h.nextIndex(), []*structs.DeploymentStatusUpdate{{
		DeploymentID: h.latestDeployment(job).ID, Status: structs.DeploymentStatusSuccessful,
	}}, h.now.UnixNano()))

	next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "1h"} })
	for step := 1; step <= 4; step++ {
		h.process(mockEval(next, structs.EvalTriggerJobRegister))
		must.SliceLen(t, 1, planAllocs(h.lastPlan().NodeAllocation), must.Sprintf("step %d: one node at a time", step))
		h.markHealthy(ofVersion(h.liveAllocs(next), next.Version)...)
	}
	must.SliceLen(t, 4, ofVersion(h.liveAllocs(next), next.Version))
}

func TestDeployment_batchIgnoresUpdate(t *testing.T) {
	h := newHarness(t)
	h.addNodes(4, nil)
	job := rollingJob(structs.JobTypeBatch, 3, 1)
	job = h.runJob(job)
	must.Nil(t, h.latestDeployment(job))
	next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "1h"} })
	h.process(mockEval(next, structs.EvalTriggerJobRegister))
	must.SliceLen(t, 3, planAllocs(h.lastPlan().NodeAllocation), must.Sprint("batch work is replaced at once"))
	must.Nil(t, h.latestDeployment(next))
}
