package api

import (
	"net/http"
	"time"
)

// allocMaxRunBody is the answer to a change of max_run_duration as the
// agent writes it.
type allocMaxRunBody struct {
	MaxRunDuration time.Duration
	MaxRunDeadline int64
	Index          uint64
}

// SetMaxRunDuration gives a running allocation of a batch or sysbatch job
// a new max_run_duration, counted from its CreateTime as before; its client
// moves the deadline at once. A Drover addition: PUT
// /v1/allocation/:id/max-run-duration.
func (a *Allocations) SetMaxRunDuration(allocID string, budget time.Duration, q *WriteOptions) (*AllocMaxRunDurationResponse, error) {
	var body allocMaxRunBody
	wm, err := a.client.write(http.MethodPut, allocPath(allocID, "max-run-duration"), nil,
		&AllocMaxRunDurationRequest{MaxRunDuration: budget}, &body, q)
	if err != nil {
		return nil, err
	}
	resp := &AllocMaxRunDurationResponse{MaxRunDuration: body.MaxRunDuration, MaxRunDeadline: body.MaxRunDeadline, WriteMeta: *wm}
	if resp.LastIndex == 0 {
		resp.LastIndex = body.Index
	}
	return resp, nil
}
