package agent

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// forwardedHeader marks a /v1/client request one agent forwarded to the
// agent that runs the allocation; such a request is never forwarded again.
const forwardedHeader = "X-Drover-Forwarded"

// clientAlloc returns the runner of an allocation on this agent's client.
// When the allocation runs on another node it forwards the request to that
// node's HTTP API, writes the answer, and returns a nil runner: the
// handler then has nothing more to do. Forwarding needs this agent's
// server to know where the allocation runs, as the CLI asks servers.
func (s *HTTPServer) clientAlloc(w http.ResponseWriter, r *http.Request) (*allocrunner.AllocRunner, error) {
	id := r.PathValue("id")
	if err := httpserver.CheckID("allocation ID", id); err != nil {
		return nil, err
	}
	if c := s.agent.client; c != nil {
		ar, err := c.AllocRunner(id)
		if err == nil {
			return ar, nil
		}
		if !errors.Is(err, client.ErrUnknownAlloc) {
			return nil, err
		}
	}
	target, err := s.allocNode(r, id)
	if err != nil {
		return nil, err
	}
	s.forward(w, r, target)
	return nil, nil
}

// allocNode returns the HTTP API of the node that runs an allocation this
// agent's client does not have.
func (s *HTTPServer) allocNode(r *http.Request, id string) (agentTarget, error) {
	srv := s.agent.server
	if srv == nil || r.Header.Get(forwardedHeader) != "" {
		return agentTarget{}, httpserver.NotFound("allocation %s not found on this client", id)
	}
	alloc, _, err := srv.GetAlloc(r.Context(), id, localLookup)
	if err != nil {
		return agentTarget{}, err
	}
	if alloc == nil {
		return agentTarget{}, httpserver.NotFound("alloc not found")
	}
	if s.agent.client != nil && alloc.NodeID == s.agent.client.NodeID() {
		return agentTarget{}, httpserver.NotFound("allocation %s is no longer on its node: the client has garbage collected it", id)
	}
	node, _, err := srv.GetNode(r.Context(), alloc.NodeID, localLookup)
	if err != nil {
		return agentTarget{}, err
	}
	if node == nil || node.HTTPAddr == "" {
		return agentTarget{}, httpserver.NotFound("node %s of allocation %s is unknown or has no HTTP address", alloc.NodeID, id)
	}
	return s.nodeTarget(node.HTTPAddr, node.TLSEnabled), nil
}

// localLookup reads what this server holds now, without blocking and
// without asking for a leader: how a /v1/client request finds the
// allocation and node it is about.
var localLookup = nomad.QueryOptions{AllowStale: true}

// forward proxies the request to the agent at target and streams its
// answer back, flushing as it goes so that followed logs arrive as they
// are written.
func (s *HTTPServer) forward(w http.ResponseWriter, r *http.Request, target agentTarget) {
	if target.err != nil {
		httpserver.WriteErrorReason(w, http.StatusBadGateway, httpserver.OneLine(target.err.Error()))
		return
	}
	addr := target.url.Host
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target.url)
			pr.Out.Header.Set(forwardedHeader, "1")
		},
		Transport:     target.transport,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return
			}
			s.logger.Warn("forward client request", "path", r.URL.Path, "node", addr, "error", err)
			httpserver.WriteErrorReason(w, http.StatusBadGateway, httpserver.OneLine(fmt.Sprintf("forward to the node at %s: %v", addr, err)))
		},
	}
	proxy.ServeHTTP(w, r)
}
