package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/structs"
)

// varRead serves GET /v1/var/:path: the variable, decrypted; 404 when
// there is none. It is a blocking query. The server checks variables
// read on the path.
func (s *HTTPServer) varRead(w http.ResponseWriter, r *http.Request) (any, error) {
	path, err := varPathParam(r)
	if err != nil {
		return nil, err
	}
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	srv, err := s.readServer(opts)
	if err != nil {
		return nil, err
	}
	resp, err := srv.ReadVariable(r.Context(), &structs.VariablesReadRequest{
		Path:         path,
		Namespace:    opts.Namespace,
		QueryOptions: structs.QueryOptions{MinQueryIndex: opts.MinIndex, MaxQueryTime: opts.Wait, AllowStale: opts.Stale},
	})
	if err != nil {
		return nil, serverReadError(err)
	}
	setStructsQueryMeta(w, resp.QueryMeta)
	if resp.Data == nil {
		return nil, httpserver.NotFound("variable not found")
	}
	return convert.VariableToAPI(resp.Data), nil
}
