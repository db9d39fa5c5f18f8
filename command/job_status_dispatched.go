package command

import "github.com/drover-io/drover/api"

// launchesPeriodically reports whether the job launches children on its
// schedule: a periodic job that is not a parameterized one waiting for a
// dispatch (its dispatched children launch instead, as in Nomad).
func launchesPeriodically(job *api.Job) bool {
	return job.IsPeriodic() && !job.IsParameterized()
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
