package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// statusLeader serves GET /v1/status/leader: the leader's RPC address as a
// JSON string, "ip:port".
func (s *HTTPServer) statusLeader(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.statusServer(r)
	if err != nil {
		return nil, err
	}
	leader := srv.Leader()
	if leader == "" {
		return nil, httpserver.NewError(http.StatusInternalServerError, "No cluster leader")
	}
	if err := s.setLatestMeta(w); err != nil {
		return nil, err
	}
	return leader, nil
}

// statusPeers serves GET /v1/status/peers: the RPC addresses of the servers
// in the raft configuration.
func (s *HTTPServer) statusPeers(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.statusServer(r)
	if err != nil {
		return nil, err
	}
	peers := srv.Peers()
	if peers == nil {
		peers = []string{}
	}
	if err := s.setLatestMeta(w); err != nil {
		return nil, err
	}
	return peers, nil
}

// regionsList serves GET /v1/regions. A Drover cluster is one region.
func (s *HTTPServer) regionsList(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := s.setLatestMeta(w); err != nil {
		return nil, err
	}
	return []string{s.agent.config.Region}, nil
}

// statusServer is the server a status request asks, for the region it
// names. Unlike the reads of serveRead it needs no known leader, even
// without ?stale: the status endpoints are how one finds out.
func (s *HTTPServer) statusServer(r *http.Request) (*nomad.Server, error) {
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	return s.readServer(opts)
}
