package agent

import (
	"context"
	"net/http"

	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// servicesList serves GET /v1/services: the registered services of the
// namespace (or, with namespace=*, of every namespace the caller may
// read jobs in), grouped by namespace, each name once with its tags.
func (s *HTTPServer) servicesList(w http.ResponseWriter, r *http.Request) (any, error) {
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	regs, err := serveRead(s, w, r, opts, (*nomad.Server).ListServiceRegistrations)
	if err != nil {
		return nil, err
	}
	return convert.ServiceRegistrationStubs(regs), nil
}

// serviceRead serves GET /v1/service/:name: every registration of the
// service in the namespace, an empty list when there is none, as Nomad's.
func (s *HTTPServer) serviceRead(w http.ResponseWriter, r *http.Request) (any, error) {
	name := r.PathValue("name")
	if err := httpserver.CheckID("service name", name); err != nil {
		return nil, err
	}
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	regs, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) ([]*structs.ServiceRegistration, nomad.QueryMeta, error) {
		return srv.GetServiceRegistrations(ctx, name, q)
	})
	if err != nil {
		return nil, err
	}
	return convert.List(regs, convert.ServiceRegistrationToAPI), nil
}

// serviceDelete serves DELETE /v1/service/:name/:id: it removes one
// registration of the request's namespace.
func (s *HTTPServer) serviceDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, id, err := s.serverWrite(r, "service registration ID")
	if err != nil {
		return nil, err
	}
	if err := httpserver.CheckID("service name", r.PathValue("name")); err != nil {
		return nil, err
	}
	ns, err := httpserver.WriteNamespace(r)
	if err != nil {
		return nil, err
	}
	resp, err := srv.DeleteServiceRegistration(r.Context(), &nomad.ServiceRegistrationDeleteRequest{Namespace: ns, ID: id})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return nil, nil
}
