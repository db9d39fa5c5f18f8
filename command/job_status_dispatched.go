package command

import (
	"cmp"
	"slices"

	"github.com/drover-io/drover/api"
)

// launchesPeriodically reports whether the job launches children on its
// schedule: a periodic job that is not a parameterized one waiting for a
// dispatch (its dispatched children launch instead, as in Nomad).
func launchesPeriodically(job *api.Job) bool {
	return job.IsPeriodic() && !job.IsParameterized()
}

// showDispatched lists the jobs dispatched from a parameterized job,
// newest first, as Nomad's job status does.
func (v *jobStatusView) showDispatched(job *api.Job) error {
	id := deref(job.ID)
	found, _, err := v.client.Jobs().PrefixList(id + "/dispatch-")
	if err != nil {
		return err
	}
	var children []*api.JobListStub
	for _, j := range found {
		if j.ParentID == id {
			children = append(children, j)
		}
	}
	v.Ui.Output("\nDispatched Jobs")
	if len(children) == 0 {
		v.Ui.Output("No dispatched instances of parameterized job found")
		return nil
	}
	slices.SortFunc(children, func(a, b *api.JobListStub) int { return cmp.Compare(b.SubmitTime, a.SubmitTime) })
	rows := []string{"ID|Status"}
	for _, j := range children {
		rows = append(rows, j.ID+"|"+jobStatusString(j.Status, j.Stop))
	}
	v.Ui.Output(formatList(rows))
	return nil
}

// jobTypeString is a job's type as Nomad's job list shows it: with
// "/periodic" and "/parameterized" for a job that launches children.
func jobTypeString(j *api.JobListStub) string {
	t := j.Type
	if j.Periodic {
		t += "/periodic"
	}
	if j.ParameterizedJob {
		t += "/parameterized"
	}
	return t
}
