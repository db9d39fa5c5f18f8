package agent

import (
	"errors"
	"net/http"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/command/agent/httpserver"
)

// clientGC serves PUT /v1/client/gc: this agent's client removes every
// finished allocation (directories and state) now. ?node_id= names
// another node, to which the request is forwarded, as Nomad's does. It
// answers an empty body, as Nomad's: Nomad's client (Nodes().GC) decodes
// none.
func (s *HTTPServer) clientGC(w http.ResponseWriter, r *http.Request) (any, error) {
	nodeID := r.URL.Query().Get("node_id")
	c := s.agent.client
	if c != nil && (nodeID == "" || nodeID == c.NodeID()) {
		if _, err := c.CollectAll(r.Context()); err != nil {
			return nil, err
		}
		return nil, nil
	}
	if nodeID == "" {
		return nil, httpserver.BadRequest("this agent runs no client: name the node to collect on with ?node_id=")
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
	if node == nil || node.HTTPAddr == "" {
		return nil, httpserver.NotFound("node %s is unknown or has no HTTP address", nodeID)
	}
	s.forward(w, r, s.nodeTarget(node.HTTPAddr, node.TLSEnabled))
	return nil, nil
}

// clientAllocGC serves PUT /v1/client/allocation/:id/gc: the client that
// ran the allocation removes it, if it has finished; one whose tasks
// still run is refused (400).
func (s *HTTPServer) clientAllocGC(w http.ResponseWriter, r *http.Request) (any, error) {
	ar, err := s.clientAlloc(w, r)
	if ar == nil {
		return nil, err
	}
	err = s.agent.client.CollectAlloc(r.Context(), ar.ID())
	switch {
	case errors.Is(err, client.ErrAllocNotTerminal):
		return nil, httpserver.BadRequest("allocation %s: %v", ar.ID(), client.ErrAllocNotTerminal)
	case errors.Is(err, client.ErrUnknownAlloc):
		return nil, httpserver.NotFound("allocation %s not found on this client", ar.ID())
	case err != nil:
		return nil, err
	}
	return struct{}{}, nil
}
