package api

import (
	"errors"
	"net/http"
	"net/url"
)

// Allocations is the handle on the allocation endpoints.
type Allocations struct {
	client *Client
}

// Allocations returns the handle on the allocation endpoints.
func (c *Client) Allocations() *Allocations {
	return &Allocations{client: c}
}

var errNilAlloc = errors.New("allocation is nil")

func allocPath(allocID string, sub ...string) string {
	p := "/v1/allocation/" + url.PathEscape(allocID)
	for _, s := range sub {
		p += "/" + s
	}
	return p
}

// clientAllocPath is the path of an allocation action served by the client
// agent that runs it.
func clientAllocPath(allocID, action string) string {
	return "/v1/client/allocation/" + url.PathEscape(allocID) + "/" + action
}

// List returns the allocations the options select; q.Prefix filters by ID
// prefix.
func (a *Allocations) List(q *QueryOptions) ([]*AllocationListStub, *QueryMeta, error) {
	var resp []*AllocationListStub
	qm, err := a.client.query("/v1/allocations", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// PrefixList returns the allocations whose ID starts with prefix.
func (a *Allocations) PrefixList(prefix string) ([]*AllocationListStub, *QueryMeta, error) {
	return a.List(&QueryOptions{Prefix: prefix})
}

// Info returns the allocation with the given ID.
func (a *Allocations) Info(allocID string, q *QueryOptions) (*Allocation, *QueryMeta, error) {
	var resp Allocation
	qm, err := a.client.query(allocPath(allocID), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// allocStopBody is the answer to a stop as the agent writes it.
type allocStopBody struct {
	EvalID string
	Index  uint64
}

// Stop stops an allocation; the scheduler replaces it if its job still wants
// it. The returned EvalID is the evaluation that does so.
func (a *Allocations) Stop(alloc *Allocation, q *QueryOptions) (*AllocStopResponse, error) {
	if alloc == nil {
		return nil, errNilAlloc
	}
	var body allocStopBody
	wm, err := a.client.writeQuery(http.MethodPost, allocPath(alloc.ID, "stop"), nil, &body, q)
	if err != nil {
		return nil, err
	}
	resp := &AllocStopResponse{EvalID: body.EvalID, WriteMeta: *wm}
	if resp.LastIndex == 0 {
		resp.LastIndex = body.Index
	}
	return resp, nil
}

// Restart restarts one task of an allocation, or, with an empty taskName,
// its running tasks; allTasks restarts every task, including those that
// already finished.
func (a *Allocations) Restart(alloc *Allocation, taskName string, allTasks bool, q *QueryOptions) error {
	if alloc == nil {
		return errNilAlloc
	}
	if taskName != "" && allTasks {
		return errors.New("restart: name a task or ask for all tasks, not both")
	}
	req := &AllocationRestartRequest{TaskName: taskName, AllTasks: allTasks}
	_, err := a.client.writeQuery(http.MethodPut, clientAllocPath(alloc.ID, "restart"), req, nil, q)
	return err
}

// Signal sends signal, such as "SIGHUP", to one task of an allocation, or to
// all of them when task is empty.
func (a *Allocations) Signal(alloc *Allocation, q *QueryOptions, task, signal string) error {
	if alloc == nil {
		return errNilAlloc
	}
	req := &AllocSignalRequest{Task: task, Signal: signal}
	_, err := a.client.writeQuery(http.MethodPut, clientAllocPath(alloc.ID, "signal"), req, nil, q)
	return err
}
