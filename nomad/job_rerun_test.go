package nomad

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestRerunWarning(t *testing.T) {
	finished := func(mutate func(*structs.Job)) *structs.Job {
		job := testJob("quick")
		job.Type = structs.JobTypeBatch
		job.Status = structs.JobStatusDead
		job.Version, job.CreateIndex, job.JobModifyIndex = 2, 10, 12
		if mutate != nil {
			mutate(job)
		}
		return job
	}
	again := func(mutate func(*structs.Job)) *structs.Job {
		job := testJob("quick")
		job.Type = structs.JobTypeBatch
		if mutate != nil {
			mutate(job)
		}
		return job
	}
	warning, err := rerunWarning(finished(nil), again(nil))
	must.NoError(t, err)
	must.StrContains(t, warning, `Job "quick" is unchanged and has finished: nothing will be started`)

	for name, c := range map[string]struct{ existing, job *structs.Job }{
		"new job":     {nil, again(nil)},
		"changed":     {finished(nil), again(func(j *structs.Job) { j.Priority = 70 })},
		"stopped":     {finished(func(j *structs.Job) { j.Stop = true }), again(nil)},
		"not done":    {finished(func(j *structs.Job) { j.Status = structs.JobStatusRunning }), again(nil)},
		"service job": {finished(func(j *structs.Job) { j.Type = structs.JobTypeService }), again(func(j *structs.Job) { j.Type = structs.JobTypeService })},
	} {
		t.Run(name, func(t *testing.T) {
			warning, err := rerunWarning(c.existing, c.job)
			must.NoError(t, err)
			must.Eq(t, "", warning)
		})
	}
}
