package agent

import (
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// namespacesList serves GET /v1/namespaces: the namespaces the caller's
// token grants anything in.
func (s *HTTPServer) namespacesList(w http.ResponseWriter, r *http.Request) (any, error) {
	return readList(s, w, r, (*nomad.Server).ListNamespaces, convert.NamespaceToAPI)
}

// namespaceRead serves GET /v1/namespace/:name.
func (s *HTTPServer) namespaceRead(w http.ResponseWriter, r *http.Request) (any, error) {
	key, opts, err := httpserver.PathQuery(r, "name", "namespace name")
	if err != nil {
		return nil, err
	}
	return readOne(s, w, r, key, opts, (*nomad.Server).GetNamespace, "namespace not found", convert.NamespaceToAPI)
}

// namespaceWrite serves PUT and POST /v1/namespace and
// /v1/namespace/:name: create or replace the namespace in the body.
func (s *HTTPServer) namespaceWrite(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	var in api.Namespace
	if err := httpserver.DecodeBody(r, &in, "namespace"); err != nil {
		return nil, err
	}
	if name := r.PathValue("name"); name != "" {
		if in.Name != "" && in.Name != name {
			return nil, httpserver.BadRequest("namespace name %q in the body does not match %q in the URL", in.Name, name)
		}
		in.Name = name
	}
	if in.Name == "" {
		return nil, httpserver.BadRequest("missing namespace name")
	}
	ns, err := convert.NamespaceFromAPI(&in)
	if err != nil {
		return nil, httpserver.BadRequest("%s", err)
	}
	resp, err := srv.UpsertNamespaces(r.Context(), &nomad.NamespaceUpsertRequest{Namespaces: []*structs.Namespace{ns}})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return nil, nil
}

// namespaceDelete serves DELETE /v1/namespace/:name. The default
// namespace, and one that still has jobs, stay.
func (s *HTTPServer) namespaceDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, name, err := s.serverWriteNamed(r, "namespace name")
	if err != nil {
		return nil, err
	}
	resp, err := srv.DeleteNamespaces(r.Context(), &nomad.NamespaceDeleteRequest{Names: []string{name}})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return nil, nil
}
