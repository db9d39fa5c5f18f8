package agent

import (
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// aclBootstrap serves PUT and POST /v1/acl/bootstrap: the cluster's first
// management token, once. The body, optional, may choose its secret.
func (s *HTTPServer) aclBootstrap(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	var req api.BootstrapRequest
	if err := decodeOptionalBody(r, &req, "bootstrap request"); err != nil {
		return nil, err
	}
	resp, err := srv.BootstrapACL(r.Context(), &nomad.ACLBootstrapRequest{BootstrapSecret: req.BootstrapSecret})
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return convert.ACLTokenToAPI(resp.Token), nil
}
