package scheduler

import (
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// annotated processes an evaluation of job and returns what DesiredUpdates
// reads in the plan it made (nil when it made none) over the allocations
// stored before.
func annotated(h *harness, job *structs.Job, trigger string) map[string]*structs.DesiredUpdates {
	h.t.Helper()
	before := h.allocs(job)
	plans := len(h.plans)
	h.process(mockEval(job, trigger))
	var plan *structs.Plan
	if len(h.plans) > plans {
		plan = h.lastPlan()
	}
	return DesiredUpdates(job, before, plan)
}

func TestDesiredUpdates(t *testing.T) {
	cases := []struct {
		name    string
		jobType string
		count   int
		// change returns the job to evaluate, after changing the cluster
		// or the job.
		change func(h *harness, job *structs.Job) *structs.Job
		want   structs.DesiredUpdates
	}{
		{
			name: "nothing to do", jobType: structs.JobTypeBatch, count: 3,
			change: func(h *harness, job *structs.Job) *structs.Job { return job },
			want:   structs.DesiredUpdates{Ignore: 3},
		},
		{
			name: "in-place", jobType: structs.JobTypeBatch, count: 2,
			change: func(h *harness, job *structs.Job) *structs.Job {
				return h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].MaxRunDuration = new(time.Minute) })
			},
			want: structs.DesiredUpdates{InPlaceUpdate: 2},
		},
		{
			name: "destructive", jobType: structs.JobTypeService, count: 2,
			change: func(h *harness, job *structs.Job) *structs.Job {
				return h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config["run_for"] = "20s" })
			},
			want: structs.DesiredUpdates{DestructiveUpdate: 2},
		},
		{
			name: "scale down", jobType: structs.JobTypeService, count: 3,
			change: func(h *harness, job *structs.Job) *structs.Job {
				return h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Count = 1 })
			},
			want: structs.DesiredUpdates{Stop: 2, InPlaceUpdate: 1},
		},
		{
			name: "migrate", jobType: structs.JobTypeService, count: 1,
			change: func(h *harness, job *structs.Job) *structs.Job {
				alloc := h.allocs(job)[0]
				h.drainNode(alloc.NodeID)
				h.markMigrate(alloc)
				return job
			},
			want: structs.DesiredUpdates{Migrate: 1},
		},
		{
			name: "lost", jobType: structs.JobTypeService, count: 2,
			change: func(h *harness, job *structs.Job) *structs.Job {
				node, err := h.store.NodeByID(nil, h.allocs(job)[0].NodeID)
				must.NoError(h.t, err)
				h.setNodeStatus(node, structs.NodeStatusDown)
				return job
			},
			want: structs.DesiredUpdates{Place: 1, Stop: 1, Ignore: 1},
		},
		{
			name: "reschedule now", jobType: structs.JobTypeService, count: 1,
			change: func(h *harness, job *structs.Job) *structs.Job {
				h.setClientStatus(structs.AllocClientStatusFailed, h.now.Add(-time.Hour), h.allocs(job)...)
				return job
			},
			want: structs.DesiredUpdates{Place: 1, RescheduleNow: 1},
		},
		{
			name: "reschedule later", jobType: structs.JobTypeBatch, count: 1,
			change: func(h *harness, job *structs.Job) *structs.Job {
				h.setClientStatus(structs.AllocClientStatusFailed, h.now, h.allocs(job)...)
				return job
			},
			want: structs.DesiredUpdates{RescheduleLater: 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addNodes(4, nil)
			job := h.runJob(mockJob(tc.jobType, tc.count))
			job = tc.change(h, job)
			got := annotated(h, job, structs.EvalTriggerJobRegister)
			must.MapLen(t, 1, got)
			must.Eq(t, tc.want, *got["g"])
		})
	}
}

func TestDesiredUpdates_removedGroupIsStopped(t *testing.T) {
	h := newHarness(t)
	h.addNodes(2, nil)
	job := h.runJob(mockJob(structs.JobTypeBatch, 2))
	next := h.updateJob(job, func(j *structs.Job) {
		j.TaskGroups[0].Name = "renamed"
	})
	got := annotated(h, next, structs.EvalTriggerJobRegister)
	must.Eq(t, structs.DesiredUpdates{Stop: 2}, *got["g"])
	must.Eq(t, structs.DesiredUpdates{Place: 2}, *got["renamed"])
}

func TestDesiredUpdates_updatesKeys(t *testing.T) {
	u := &structs.DesiredUpdates{Place: 2, InPlaceUpdate: 1, RescheduleNow: 2}
	must.Eq(t, map[string]uint64{"create": 2, "in-place update": 1}, u.Updates())
	must.Nil(t, (&structs.DesiredUpdates{}).Updates())
}
