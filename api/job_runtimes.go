package api

import "time"

// JobRunTimes is a Drover addition: the run times of a job's finished
// allocations per job version and group, against the budget they ran
// under (GET /v1/job/:id/runtimes).
type JobRunTimes struct {
	Namespace string
	JobID     string
	// Groups are newest version first, then by group name.
	Groups []*RunTimeStats
}

// RunTimeStats are the run times, from an allocation's creation to the
// end of its last task, of one group's finished allocations of one job
// version. Durations are in nanoseconds.
type RunTimeStats struct {
	Version   uint64
	TaskGroup string
	// Budget is the group's max_run_duration in that version (else the
	// job's); zero when none.
	Budget time.Duration
	Count  int
	// P50, P95 and Max are nearest-rank percentiles.
	P50      time.Duration
	P95      time.Duration
	Max      time.Duration
	Timeouts int
}

// RunTimes returns the run-time accounting of a job: a Drover addition.
func (j *Jobs) RunTimes(jobID string, q *QueryOptions) (*JobRunTimes, *QueryMeta, error) {
	var resp JobRunTimes
	qm, err := j.client.query(jobPath(jobID, "runtimes"), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}
