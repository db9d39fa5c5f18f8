package structs

import "time"

// validateWaitLimits checks max_pending_duration and max_run_extension
// where they are written (the job, or a group): each must be greater than
// zero and at most MaxJobDuration, and only batch and sysbatch jobs, the
// ones that may have a max_run_duration, allow them.
func validateWaitLimits(p *problems, where, jobType string, pending, extension *time.Duration) {
	for _, f := range []struct {
		name string
		d    *time.Duration
	}{{"max_pending_duration", pending}, {"max_run_extension", extension}} {
		if f.d == nil {
			continue
		}
		if *f.d <= 0 {
			p.add(where, "%s must be greater than zero, got %s", f.name, *f.d)
		} else {
			validateDuration(p, where, f.name, *f.d)
		}
		if !AllowsMaxRunDuration(jobType) {
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
