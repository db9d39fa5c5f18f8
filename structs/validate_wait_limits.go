package structs

import "time"

// validateWaitLimits checks max_pending_duration and max_run_extension
// where they are written (the job, or a group): each must be greater than
// zero and at most MaxJobDuration. max_run_extension is allowed where
// max_run_duration is (batch and sysbatch jobs); max_pending_duration
// only on batch jobs, whose placements wait in one blocked evaluation (a
// sysbatch job's wait for nodes of their own).
func validateWaitLimits(p *problems, where, jobType string, pending, extension *time.Duration) {
	for _, f := range []struct {
		name    string
		d       *time.Duration
		allowed bool
	}{
		{"max_pending_duration", pending, jobType == JobTypeBatch},
		{"max_run_extension", extension, AllowsMaxRunDuration(jobType)},
	} {
		if f.d == nil {
			continue
		}
		if *f.d <= 0 {
			p.add(where, "%s must be greater than zero, got %s", f.name, *f.d)
		} else {
			validateDuration(p, where, f.name, *f.d)
		}
		if !f.allowed {
			p.add(where, "Job type %q does not allow %s", jobType, f.name)
		}
	}
}

// validateGroupWaitLimits checks the group's own max_pending_duration and
// max_run_extension: a value canonicalisation copied from the job is the
// job's, whose problems are reported once, on the job.
func (j *Job) validateGroupWaitLimits(p *problems, where string, tg *TaskGroup) {
	pending, extension := tg.MaxPendingDuration, tg.MaxRunExtension
	if samePtrValue(pending, j.MaxPendingDuration) {
		pending = nil
	}
	if samePtrValue(extension, j.MaxRunExtension) {
		extension = nil
	}
	validateWaitLimits(p, where, j.Type, pending, extension)
}

func samePtrValue(a, b *time.Duration) bool {
	return a != nil && b != nil && *a == *b
}
