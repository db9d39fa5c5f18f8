package api

import "time"

// What a parameterized job asks of a dispatch's payload.
const (
	DispatchPayloadOptional  = "optional"
	DispatchPayloadRequired  = "required"
	DispatchPayloadForbidden = "forbidden"
)

// ParameterizedJobConfig is the job's parameterized block.
type ParameterizedJobConfig struct {
	Payload      string
	MetaRequired []string
	MetaOptional []string
	// MaxRunDurationMax is Drover's: the longest max_run_duration a
	// dispatch may ask for its child.
	MaxRunDurationMax *time.Duration `json:",omitempty"`
}

// DispatchPayloadConfig is a task's dispatch_payload block.
type DispatchPayloadConfig struct {
	File string
}

// JobDispatchRequest is the body of PUT /v1/job/:id/dispatch.
type JobDispatchRequest struct {
	JobID            string
	Payload          []byte
	Meta             map[string]string
	IdPrefixTemplate string
	Priority         int
	// MaxRunDuration is Drover's: the child's groups' max_run_duration,
	// at most the parent's max_run_duration_max.
	MaxRunDuration *time.Duration `json:",omitempty"`
}

// JobDispatchResponse is the answer to PUT /v1/job/:id/dispatch.
type JobDispatchResponse struct {
	DispatchedJobID string
	EvalID          string
	EvalCreateIndex uint64
	JobCreateIndex  uint64
	Index           uint64
}

// Dispatch dispatches the parameterized job req.JobID with req's inputs;
// q.IdempotencyToken, when set, makes it idempotent.
func (j *Jobs) Dispatch(req *JobDispatchRequest, q *WriteOptions) (*JobDispatchResponse, *WriteMeta, error) {
	var resp JobDispatchResponse
	wm, err := j.client.put(jobPath(req.JobID, "dispatch"), req, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	if wm.LastIndex == 0 {
		wm.LastIndex = resp.Index
	}
	return &resp, wm, nil
}
