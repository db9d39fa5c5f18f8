package agent

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/servicecheck"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/drivers"
)

// allocRestartRequest is the body of PUT /v1/client/allocation/:id/restart.
type allocRestartRequest struct {
	TaskName string
	AllTasks bool
}

// allocSignalRequest is the body of PUT /v1/client/allocation/:id/signal.
type allocSignalRequest struct {
	Task   string
	Signal string
}

// defaultAllocSignal is what `alloc signal` sends when no signal is named,
// as in Nomad.
const defaultAllocSignal = "SIGKILL"

// clientAllocStats serves GET /v1/client/allocation/:id/stats.
func (s *HTTPServer) clientAllocStats(w http.ResponseWriter, r *http.Request) (any, error) {
	ar, err := s.clientAlloc(w, r)
	if ar == nil {
		return nil, err
	}
	return s.agent.client.AllocStats(ar.ID())
}

// clientAllocChecks serves GET /v1/client/allocation/:id/checks: the
// latest result of each running check of the allocation's services, from
// the client that runs it. An allocation this agent's client does not run
// (another node's, or one it has let go) has none to show, as in Nomad.
func (s *HTTPServer) clientAllocChecks(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	if err := httpserver.CheckID("allocation ID", id); err != nil {
		return nil, err
	}
	if c := s.agent.client; c != nil {
		if ar, err := c.AllocRunner(id); err == nil {
			return checkStatusesToAPI(ar.CheckStatuses()), nil
		}
	}
	if srv := s.agent.server; srv != nil {
		alloc, _, err := srv.GetAlloc(r.Context(), id, localLookup)
		if err != nil {
			return nil, err
		}
		if alloc != nil {
			return api.AllocCheckStatuses{}, nil
		}
	}
	return nil, httpserver.NotFound("alloc not found")
}

func checkStatusesToAPI(in map[string]servicecheck.Status) api.AllocCheckStatuses {
	out := make(api.AllocCheckStatuses, len(in))
	for id, st := range in {
		out[id] = api.AllocCheckStatus{
			ID: st.ID, Check: st.Check, Group: st.Group, Mode: st.Mode, Output: st.Output,
			Service: st.Service, Task: st.Task, Status: st.Status, StatusCode: st.StatusCode,
			Timestamp: st.Timestamp,
		}
	}
	return out
}

// clientAllocRestart serves PUT and POST /v1/client/allocation/:id/restart:
// it restarts the named task, or every running task. AllTasks restarts
// every running task too: a task that has finished cannot run again in
// place.
func (s *HTTPServer) clientAllocRestart(w http.ResponseWriter, r *http.Request) (any, error) {
	ar, err := s.clientAlloc(w, r)
	if ar == nil {
		return nil, err
	}
	var req allocRestartRequest
	if err := decodeOptionalBody(r, &req, "restart request"); err != nil {
		return nil, err
	}
	if req.TaskName != "" && req.AllTasks {
		return nil, httpserver.BadRequest("restart request names task %q and asks for all tasks: choose one", req.TaskName)
	}
	if err := checkTask(ar, req.TaskName); err != nil {
		return nil, err
	}
	if req.TaskName != "" {
		err = ar.RestartTask(req.TaskName, nil)
	} else {
		err = ar.RestartAll(nil)
	}
	if err != nil {
		return nil, taskActionError(err)
	}
	return struct{}{}, nil
}

// clientAllocSignal serves PUT and POST /v1/client/allocation/:id/signal.
func (s *HTTPServer) clientAllocSignal(w http.ResponseWriter, r *http.Request) (any, error) {
	ar, err := s.clientAlloc(w, r)
	if ar == nil {
		return nil, err
	}
	var req allocSignalRequest
	if err := decodeOptionalBody(r, &req, "signal request"); err != nil {
		return nil, err
	}
	if req.Signal == "" {
		req.Signal = defaultAllocSignal
	}
	if _, err := drivers.Signal(req.Signal); err != nil {
		return nil, httpserver.BadRequest("invalid signal request: %v", err)
	}
	if err := checkTask(ar, req.Task); err != nil {
		return nil, err
	}
	if err := ar.Signal(req.Task, req.Signal); err != nil {
		return nil, taskActionError(err)
	}
	return struct{}{}, nil
}

// checkTask rejects a task the allocation does not have.
func checkTask(ar *allocrunner.AllocRunner, task string) error {
	if task == "" {
		return nil
	}
	if _, ok := ar.Alloc().TaskStates[task]; !ok {
		return httpserver.NotFound("task %q not found in allocation %s", task, ar.ID())
	}
	return nil
}

// taskActionError gives a failed restart or signal its status: the
// caller's fault when the task does not run.
func taskActionError(err error) error {
	if errors.Is(err, taskrunner.ErrTaskNotRunning) {
		return httpserver.BadRequest("%s", err.Error())
	}
	return err
}

// decodeOptionalBody decodes a JSON body into out when there is one; an
// empty body leaves out as it is.
func decodeOptionalBody(r *http.Request, out any, what string) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return httpserver.DecodeError(err, what)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	return httpserver.UnmarshalBody(data, out, what)
}
