package agent

import (
	"context"
	"errors"
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// requireServer returns the agent's server for an endpoint that needs one.
func (s *HTTPServer) requireServer() (*nomad.Server, error) {
	if srv := s.agent.server; srv != nil {
		return srv, nil
	}
	return nil, httpserver.NewError(http.StatusNotImplemented, "this agent runs no server: send the request to a server agent")
}

// serverWrite checks what a write to one object needs: the agent's server
// and the object's ID from the URL, named in errors by what ("job ID").
func (s *HTTPServer) serverWrite(r *http.Request, what string) (*nomad.Server, string, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, "", err
	}
	id := r.PathValue("id")
	if err := httpserver.CheckID(what, id); err != nil {
		return nil, "", err
	}
	return srv, id, nil
}

// checkRegion rejects a request for a region other than the agent's: a
// Drover cluster serves one region.
func (s *HTTPServer) checkRegion(region string) error {
	if region != "" && region != s.agent.config.Region {
		return httpserver.BadRequest("unknown region %q: this cluster serves region %q", region, s.agent.config.Region)
	}
	return nil
}

// readServer is requireServer for reads: it also checks the region.
func (s *HTTPServer) readServer(opts httpserver.QueryOptions) (*nomad.Server, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	if err := s.checkRegion(opts.Region); err != nil {
		return nil, err
	}
	return srv, nil
}

// serverRead is one of the server's read methods, as serveRead calls it.
type serverRead[T any] func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) (T, nomad.QueryMeta, error)

// serveRead answers a read request through one of the server's read
// methods, which own what index, wait and stale mean, and sets the index
// and leader headers from its answer. A read that is not ?stale needs a
// known leader, as in Nomad.
func serveRead[T any](s *HTTPServer, w http.ResponseWriter, r *http.Request, opts httpserver.QueryOptions, read serverRead[T]) (T, error) {
	var zero T
	srv, err := s.readServer(opts)
	if err != nil {
		return zero, err
	}
	q := opts.ServerQuery()
	id := requestIdentity(r)
	q.ACL, q.Token = id.acl, id.token
	out, meta, err := read(srv, r.Context(), q)
	if errors.Is(err, nomad.ErrNoLeader) {
		return zero, httpserver.NewError(http.StatusInternalServerError, "No cluster leader")
	}
	if err != nil {
		return zero, err
	}
	httpserver.SetQueryMeta(w, meta)
	return out, nil
}

// setLatestMeta sets the read headers for a response that is not a state
// read (status, agent), from the latest index of the server's state.
func (s *HTTPServer) setLatestMeta(w http.ResponseWriter) error {
	srv := s.agent.server
	if srv == nil {
		return nil
	}
	meta, err := srv.LatestQueryMeta()
	if err != nil {
		return err
	}
	httpserver.SetQueryMeta(w, meta)
	return nil
}
