package structs

import (
	"encoding/json"
	"fmt"
	"strings"
)

// JobLimits bound how large one job may be. They are checked where a job
// comes in (register, plan, validate) and before a job is scheduled, so
// that no single job can make a server allocate without bound: the
// scheduler builds a placement per counted allocation, and every copy of
// the job costs its size.
//
// The messages name each limit by its key in the agent configuration's
// limits block, which is where an operator changes it.
type JobLimits struct {
	// MaxCount bounds the allocations a job asks for: the sum of its
	// groups' counts (Nomad's job_max_count).
	MaxCount int
	// MaxGroups bounds the task groups of a job.
	MaxGroups int
	// MaxTasksPerGroup bounds the tasks of one group.
	MaxTasksPerGroup int
	// MaxSize bounds the job's JSON encoding, in bytes.
	MaxSize int
}

// Default job limits. Each is far above what a real job needs and low
// enough that a job at the limit is still cheap to hold and to schedule;
// the agent documentation (limits block) says why each was chosen.
const (
	DefaultJobMaxCount         = 50_000
	DefaultJobMaxGroups        = 1_000
	DefaultJobMaxTasksPerGroup = 100
	DefaultJobMaxSize          = 4 << 20
)

// DefaultJobLimits are the limits of an agent whose configuration sets
// none.
func DefaultJobLimits() JobLimits {
	return JobLimits{
		MaxCount:         DefaultJobMaxCount,
		MaxGroups:        DefaultJobMaxGroups,
		MaxTasksPerGroup: DefaultJobMaxTasksPerGroup,
		MaxSize:          DefaultJobMaxSize,
	}
}

// CheckLimits reports, as a *ValidationError, every way the job exceeds l;
// nil when it fits. A limit of zero or less is not checked. Each problem
// names the field, its value and the limit.
func (j *Job) CheckLimits(l JobLimits) error {
	var p problems
	j.checkCounts(&p, l)
	if l.MaxSize > 0 {
		// Encoding is bounded: the job came in a request body that is
		// itself capped.
		data, err := json.Marshal(j)
		switch {
		case err != nil:
			p.add("", "Job cannot be encoded as JSON to measure its size: %v", err)
		case len(data) > l.MaxSize:
			p.add("", "Job is %d bytes as JSON, more than the limit of %d bytes (limits.job_max_size)", len(data), l.MaxSize)
		}
	}
	return p.err()
}

// CheckCountLimits is CheckLimits without the size: what the scheduler
// must know before it builds a placement per allocation.
func (j *Job) CheckCountLimits(l JobLimits) error {
	var p problems
	j.checkCounts(&p, l)
	return p.err()
}

// checkCounts checks the numbers of groups, tasks and allocations.
func (j *Job) checkCounts(p *problems, l JobLimits) {
	if l.MaxGroups > 0 && len(j.TaskGroups) > l.MaxGroups {
		p.add("", "Job has %d task groups, more than the limit of %d (limits.job_max_groups)", len(j.TaskGroups), l.MaxGroups)
	}
	total, groupTooLarge := 0, false
	for i, tg := range j.TaskGroups {
		if tg == nil {
			continue
		}
		where := groupWhere(i, tg)
		if l.MaxCount > 0 && tg.Count > l.MaxCount {
			p.add(where, "count %d is more than the limit of %d allocations per job (limits.job_max_count)", tg.Count, l.MaxCount)
			groupTooLarge = true
		}
		if l.MaxTasksPerGroup > 0 && len(tg.Tasks) > l.MaxTasksPerGroup {
			p.add(where, "Group has %d tasks, more than the limit of %d (limits.job_max_tasks_per_group)", len(tg.Tasks), l.MaxTasksPerGroup)
		}
		// Clamped so that the sum cannot overflow whatever the counts.
		total += min(max(tg.Count, 0), l.MaxCount+1)
	}
	if l.MaxCount > 0 && !groupTooLarge && total > l.MaxCount {
		p.add("", "Job's groups ask for %d allocations in all (the sum of their counts), more than the limit of %d (limits.job_max_count)", total, l.MaxCount)
	}
}

// JobLimitError is how a server refuses to schedule a job that is beyond
// its limits (one stored before the limits were lowered, say); it is the
// evaluation's status description.
func JobLimitError(job *Job, err error) string {
	return fmt.Sprintf("job %q exceeds this server's limits and is not scheduled: %v", job.ID, oneLineProblems(err))
}

// oneLineProblems joins a validation error's problems with "; ".
func oneLineProblems(err error) string {
	v, ok := err.(*ValidationError)
	if !ok {
		return err.Error()
	}
	msgs := make([]string, len(v.Errors))
	for i, e := range v.Errors {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}
