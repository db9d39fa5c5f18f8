package api

import "errors"

// Plan asks the server what registering job would do, without registering
// it: the allocations the scheduler would place, update or stop, the
// placements that would fail and, when diff is set, how the job differs
// from the registered one.
func (j *Jobs) Plan(job *Job, diff bool, q *WriteOptions) (*JobPlanResponse, *WriteMeta, error) {
	if job == nil {
		return nil, nil, errNilJob
	}
	if job.ID == nil || *job.ID == "" {
		return nil, nil, errors.New("job has no ID")
	}
	var resp JobPlanResponse
	wm, err := j.client.put(jobPath(*job.ID, "plan"), &JobPlanRequest{Job: job, Diff: diff}, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, wm, nil
}
