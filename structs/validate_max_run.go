package structs

import "fmt"

// The checks of Drover's additions around max_run_duration, kept together
// so that the rules read as one: a task's own max_run_duration.

// validateMaxRunExtensions checks the group's tasks' own limits. A task
// limit is allowed where the group's is (batch and sysbatch jobs).
func (tg *TaskGroup) validateMaxRunExtensions(p *problems, where, jobType string) {
	for i, t := range tg.Tasks {
		if t == nil || t.MaxRunDuration == nil {
			continue
		}
		taskWhere := taskWhere(where, i, t)
		if *t.MaxRunDuration <= 0 {
			p.add(taskWhere, "max_run_duration must be greater than zero, got %s", *t.MaxRunDuration)
		}
		if !AllowsMaxRunDuration(jobType) {
			p.add(taskWhere, "Job type %q does not allow max_run_duration", jobType)
		}
	}
}

// Warnings lists what is valid in the job but likely not what its author
// meant; the job runs as written. It assumes a job that passed Validate.
func (j *Job) Warnings() []string {
	if j == nil {
		return nil
	}
	var out []string
	for i, tg := range j.TaskGroups {
		if tg == nil || tg.MaxRunDuration == nil {
			continue
		}
		group := *tg.MaxRunDuration
		for k, t := range tg.Tasks {
			if t == nil || t.MaxRunDuration == nil || *t.MaxRunDuration <= group {
				continue
			}
			out = append(out, fmt.Sprintf("%s: max_run_duration %s is longer than the group's %s, whose deadline comes first",
				taskWhere(groupWhere(i, tg), k, t), *t.MaxRunDuration, group))
		}
	}
	return out
}
