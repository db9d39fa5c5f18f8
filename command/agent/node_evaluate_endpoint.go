package agent

import "net/http"

// nodeEvaluate serves PUT and POST /v1/node/:id/evaluate: an evaluation
// for every job the node runs or may run.
func (s *HTTPServer) nodeEvaluate(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.nodeWrite(r)
	if err != nil {
		return nil, err
	}
	resp, err := srv.NodeEvaluate(r.Context(), id)
	return nodeUpdateResult(w, resp, err)
}
