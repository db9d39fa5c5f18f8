package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// allocStopResponse is the answer to a stop, as Nomad's JSON has it.
type allocStopResponse struct {
	EvalID string
	Index  uint64
}

// allocsList serves GET /v1/allocations: stubs of the allocations whose ID
// starts with ?prefix. ?task_states=false leaves the task states out and
// ?resources=true adds AllocatedResources, as in Nomad.
func (s *HTTPServer) allocsList(w http.ResponseWriter, r *http.Request) (any, error) {
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	taskStates := true
	if _, ok := r.URL.Query()["task_states"]; ok {
		if taskStates, err = httpserver.ParseBoolParam(r, "task_states"); err != nil {
			return nil, err
		}
	}
	withResources, err := httpserver.ParseBoolParam(r, "resources")
	if err != nil {
		return nil, err
	}
	allocs, err := serveRead(s, w, r, opts, (*nomad.Server).ListAllocs)
	if err != nil {
		return nil, err
	}
	stubs := convert.AllocStubs(allocs)
	for i, stub := range stubs {
		if !taskStates {
			stub.TaskStates = nil
		}
		if withResources {
			stub.AllocatedResources = convert.AllocatedResourcesToAPI(allocs[i])
		}
	}
	return stubs, nil
}

// allocRead serves GET /v1/allocation/:id: the whole allocation with its
// job.
func (s *HTTPServer) allocRead(w http.ResponseWriter, r *http.Request) (any, error) {
	key, opts, err := httpserver.IDQuery(r, "allocation ID")
	if err != nil {
		return nil, err
	}
	return readOne(s, w, r, key, opts, (*nomad.Server).GetAlloc, "alloc not found", convert.AllocToAPI)
}

// allocStop serves PUT and POST /v1/allocation/:id/stop.
func (s *HTTPServer) allocStop(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.serverWrite(r, "allocation ID")
	if err != nil {
		return nil, err
	}
	if err := s.checkRegion(r.URL.Query().Get("region")); err != nil {
		return nil, err
	}
	resp, err := srv.AllocStop(r.Context(), id)
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return &allocStopResponse{EvalID: resp.EvalID, Index: resp.Index}, nil
}
