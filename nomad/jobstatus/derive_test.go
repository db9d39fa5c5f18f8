package jobstatus

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

func TestDeriveJobStatus(t *testing.T) {
	alloc := func(desired, client string) *structs.Allocation {
		return &structs.Allocation{DesiredStatus: desired, ClientStatus: client}
	}
	eval := func(status string) *structs.Evaluation { return &structs.Evaluation{Status: status} }
	run, stop := structs.AllocDesiredStatusRun, structs.AllocDesiredStatusStop
	cases := []struct {
		name    string
		jobType string
		stopped bool
		allocs  []*structs.Allocation
		evals   []*structs.Evaluation
		want    string
	}{
		{"nothing yet", structs.JobTypeBatch, false, nil, nil, structs.JobStatusPending},
		{"waiting for its evaluation", structs.JobTypeBatch, false, nil, []*structs.Evaluation{eval(structs.EvalStatusPending)}, structs.JobStatusPending},
		{"blocked for room", structs.JobTypeBatch, false, nil, []*structs.Evaluation{eval(structs.EvalStatusComplete), eval(structs.EvalStatusBlocked)}, structs.JobStatusPending},
		{"placed", structs.JobTypeBatch, false, []*structs.Allocation{alloc(run, structs.AllocClientStatusPending)}, []*structs.Evaluation{eval(structs.EvalStatusComplete)}, structs.JobStatusRunning},
		{"one still running", structs.JobTypeBatch, false, []*structs.Allocation{alloc(run, structs.AllocClientStatusComplete), alloc(run, structs.AllocClientStatusRunning)}, nil, structs.JobStatusRunning},
		{"all finished", structs.JobTypeBatch, false, []*structs.Allocation{alloc(run, structs.AllocClientStatusComplete), alloc(run, structs.AllocClientStatusFailed)}, []*structs.Evaluation{eval(structs.EvalStatusComplete)}, structs.JobStatusDead},
		{"finished but a retry is pending", structs.JobTypeBatch, false, []*structs.Allocation{alloc(run, structs.AllocClientStatusFailed)}, []*structs.Evaluation{eval(structs.EvalStatusPending)}, structs.JobStatusPending},
		{"stopped and stopping", structs.JobTypeService, true, []*structs.Allocation{alloc(stop, structs.AllocClientStatusRunning)}, []*structs.Evaluation{eval(structs.EvalStatusComplete)}, structs.JobStatusDead},
		{"stopped before any evaluation ran", structs.JobTypeService, true, nil, nil, structs.JobStatusDead},
		{"system job with nothing placed", structs.JobTypeSystem, false, nil, []*structs.Evaluation{eval(structs.EvalStatusComplete)}, structs.JobStatusRunning},
		{"stopped system job", structs.JobTypeSystem, true, nil, []*structs.Evaluation{eval(structs.EvalStatusComplete)}, structs.JobStatusDead},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := state.NewStateStore()
			must.NoError(t, err)
			job := fixture.Job("j")
			job.Type = c.jobType
			job.Stop = c.stopped
			must.NoError(t, st.UpsertJob(10, job))
			for i, a := range c.allocs {
				a.ID = structs.GenerateUUID()
				a.Namespace, a.JobID, a.Name, a.TaskGroup = job.Namespace, job.ID, structs.AllocName("j", "group", uint(i)), "group"
				must.NoError(t, st.UpsertAllocs(uint64(11+i), []*structs.Allocation{a}))
			}
			for i, e := range c.evals {
				e.ID = structs.GenerateUUID()
				e.Namespace, e.JobID = job.Namespace, job.ID
				must.NoError(t, st.UpsertEvals(uint64(20+i), []*structs.Evaluation{e}))
			}
			got, err := deriveJobStatus(st, job)
			must.NoError(t, err)
			must.Eq(t, c.want, got)
		})
	}

	periodic := fixture.PeriodicJob("p")
	got, err := deriveJobStatus(nil, periodic)
	must.NoError(t, err)
	must.Eq(t, structs.JobStatusRunning, got, must.Sprint("a periodic parent runs until stopped"))
	periodic.Stop = true
	got, err = deriveJobStatus(nil, periodic)
	must.NoError(t, err)
	must.Eq(t, structs.JobStatusDead, got)
}

func TestDeriveJobStatus_parameterizedParent(t *testing.T) {
	parent := fixture.Job("p")
	parent.ParameterizedJob = &structs.ParameterizedJobConfig{Payload: structs.DispatchPayloadOptional}
	got, err := deriveJobStatus(nil, parent)
	must.NoError(t, err)
	must.Eq(t, structs.JobStatusRunning, got, must.Sprint("a parameterized parent runs until stopped"))
	parent.Stop = true
	got, err = deriveJobStatus(nil, parent)
	must.NoError(t, err)
	must.Eq(t, structs.JobStatusDead, got)

	// Its dispatched child is a job like any other: pending until placed.
	st, err := state.NewStateStore()
	must.NoError(t, err)
	child := fixture.Job("p/dispatch-1-0123abcd")
	child.ParentID, child.Dispatched = "p", true
	child.ParameterizedJob = parent.ParameterizedJob
	must.NoError(t, st.UpsertJob(10, child))
	got, err = deriveJobStatus(st, child)
	must.NoError(t, err)
	must.Eq(t, structs.JobStatusPending, got)
}
