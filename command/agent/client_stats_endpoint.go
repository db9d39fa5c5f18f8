package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
)

// clientHostStats serves GET /v1/client/stats: the resource use of this
// agent's node, or, with ?node_id=, of that node, to whose agent the
// request is forwarded as the other /v1/client routes are.
func (s *HTTPServer) clientHostStats(w http.ResponseWriter, r *http.Request) (any, error) {
	nodeID := r.URL.Query().Get("node_id")
	c := s.agent.client
	if c != nil && (nodeID == "" || nodeID == c.NodeID()) {
		return c.HostStats()
	}
	if nodeID == "" {
		return nil, httpserver.BadRequest("this agent runs no client: name the node with ?node_id=")
	}
	if err := httpserver.CheckID("node ID", nodeID); err != nil {
		return nil, err
	}
	srv := s.agent.server
	if srv == nil || r.Header.Get(forwardedHeader) != "" {
		return nil, httpserver.NotFound("node %s is not this agent's client", nodeID)
	}
	node, _, err := srv.GetNode(r.Context(), nodeID, localLookup)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, httpserver.NotFound("node %s not found", nodeID)
	}
	if node.HTTPAddr == "" {
		return nil, httpserver.NotFound("node %s has no HTTP address", nodeID)
	}
	s.forward(w, r, s.nodeTarget(node.HTTPAddr, node.TLSEnabled))
	return nil, nil
}
