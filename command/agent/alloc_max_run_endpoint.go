package agent

import (
	"net/http"
	"time"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/httpserver"
)

// allocMaxRunResponse is the answer to a change of an allocation's
// max_run_duration.
type allocMaxRunResponse struct {
	MaxRunDuration time.Duration
	MaxRunDeadline int64 `json:",omitempty"`
	Index          uint64
}

// allocMaxRunDuration serves PUT and POST
// /v1/allocation/:id/max-run-duration, a Drover addition: the body
// {"MaxRunDuration": <nanoseconds>} is the running allocation's new
// budget, on the same anchor (its CreateTime). The answer is the budget
// and deadline as they now are, from the one deadline definition.
//
// With ACLs it needs what stopping the allocation needs
// (POST /v1/allocation/:id/stop: Nomad's alloc-lifecycle capability in the
// allocation's namespace): it ends the allocation's tasks sooner or later.
func (s *HTTPServer) allocMaxRunDuration(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.serverWrite(r, "allocation ID")
	if err != nil {
		return nil, err
	}
	if err := s.checkRegion(r.URL.Query().Get("region")); err != nil {
		return nil, err
	}
	body, err := httpserver.ReadBody(r, `{"MaxRunDuration": <nanoseconds>}`)
	if err != nil {
		return nil, err
	}
	var req api.AllocMaxRunDurationRequest
	if err := httpserver.UnmarshalBody(body, &req, "max_run_duration request"); err != nil {
		return nil, err
	}
	if req.MaxRunDuration <= 0 {
		return nil, httpserver.BadRequest("MaxRunDuration must be greater than zero (nanoseconds), got %d", int64(req.MaxRunDuration))
	}
	resp, err := srv.AllocSetMaxRunDuration(r.Context(), id, req.MaxRunDuration)
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	out := &allocMaxRunResponse{MaxRunDuration: resp.MaxRun.Budget, Index: resp.Index}
	if resp.MaxRun.HasDeadline() {
		out.MaxRunDeadline = resp.MaxRun.Deadline.UnixNano()
	}
	return out, nil
}
