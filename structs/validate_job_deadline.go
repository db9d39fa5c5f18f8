package structs

import "time"

// validateJobDeadlines checks Drover's job-wide time limits: the job's
// own max_run_duration, its finish-by deadline and each group's
// min_run_duration. All of them are for work meant to finish (batch and
// sysbatch jobs), as the group's max_run_duration is.
func (j *Job) validateJobDeadlines(p *problems) {
	if d := j.MaxRunDuration; d != nil {
		if *d <= 0 {
			p.add("", "Job max_run_duration must be greater than zero, got %s", *d)
		} else {
			validateDuration(p, "", "Job max_run_duration", *d)
		}
		if !AllowsMaxRunDuration(j.Type) {
			p.add("", "Job type %q does not allow max_run_duration", j.Type)
		}
	}
	if d := j.Deadline; d != nil {
		j.validateDeadline(p, d)
	}
	for i, tg := range j.TaskGroups {
		if tg == nil || tg.MinRunDuration == nil {
			continue
		}
		where, m := groupWhere(i, tg), *tg.MinRunDuration
		if m <= 0 {
			p.add(where, "min_run_duration must be greater than zero, got %s", m)
		} else {
			validateDuration(p, where, "min_run_duration", m)
		}
		if !AllowsMaxRunDuration(j.Type) {
			p.add(where, "Job type %q does not allow min_run_duration", j.Type)
		}
		if limit, ok := shortestLimit(tg.MaxRunDuration, j.MaxRunDuration); ok && m > limit {
			p.add(where, "min_run_duration %s is longer than the max_run_duration %s that bounds the group", m, limit)
		}
	}
}

// validateDeadline checks the job's deadline: an instant, or for a job
// that launches children (periodic or parameterized) a time after each
// launch; never both.
func (j *Job) validateDeadline(p *problems, d *JobDeadline) {
	if !AllowsMaxRunDuration(j.Type) {
		p.add("", "Job type %q does not allow deadline", j.Type)
	}
	switch {
	case d.At != 0 && d.AfterLaunch != 0:
		p.add("", "Job deadline must be an instant or a duration after each launch, not both")
	case d.At < 0:
		p.add("", "Job deadline must be an instant after 1970-01-01, got %d", d.At)
	case d.AfterLaunch < 0:
		p.add("", "Job deadline after launch must be greater than zero, got %s", d.AfterLaunch)
	case d.AfterLaunch > 0:
		validateDuration(p, "", "Job deadline", d.AfterLaunch)
		if !j.LaunchesChildren() {
			p.add("", "Job deadline %s is a duration, which only a periodic or parameterized job may give (a time after each launch); give an RFC 3339 instant instead", d.AfterLaunch)
		}
	case d.At == 0:
		p.add("", "Job deadline must give an instant or a duration after each launch")
	case time.Unix(0, d.At).Year() < 2000:
		p.add("", "Job deadline %s is before the year 2000: an instant is in Unix nanoseconds", time.Unix(0, d.At).UTC().Format(time.RFC3339))
	}
}
