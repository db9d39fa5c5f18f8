package agent

import "net/http"

// nodePurge serves PUT and POST /v1/node/:id/purge: the node is removed
// from the servers' state at once, its allocations lost and replaced, as
// Nomad's purge does (a client that is still running registers again).
func (s *HTTPServer) nodePurge(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.nodeWrite(r)
	if err != nil {
		return nil, err
	}
	resp, err := srv.NodeDeregister(r.Context(), []string{id})
	return nodeUpdateResult(w, resp, err)
}
