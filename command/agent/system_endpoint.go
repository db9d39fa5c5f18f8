package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
)

// systemGC serves PUT /v1/system/gc (Nomad's `system gc`): a garbage
// collection now, regardless of the thresholds. Nomad answers nothing;
// Drover answers what it removed, which Nomad's client ignores.
func (s *HTTPServer) systemGC(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	resp, err := srv.GarbageCollect(r.Context())
	if err != nil {
		return nil, err
	}
	if resp.Index > 0 {
		httpserver.SetIndex(w, resp.Index)
	}
	return resp, nil
}

// systemReconcileSummaries serves PUT /v1/system/reconcile/summaries.
// Drover derives job summaries on every read, so there is nothing to
// rebuild; the route answers as Nomad's does, for a management token.
func (s *HTTPServer) systemReconcileSummaries(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	resp, err := srv.ReconcileSummaries(r.Context())
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return struct{}{}, nil
}
