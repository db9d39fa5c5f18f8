package agent

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// headerNextToken carries where the next page of a list starts.
const headerNextToken = "X-Nomad-NextToken"

// varsList serves GET /v1/vars: the metadata, never the items, of the
// variables whose path starts with ?prefix in ?namespace ("*": every
// namespace), those the token may list, a page of ?per_page at a time
// from ?next_token. It is a blocking query.
func (s *HTTPServer) varsList(w http.ResponseWriter, r *http.Request) (any, error) {
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	srv, err := s.readServer(opts)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	perPage := 0
	if v := q.Get("per_page"); v != "" {
		if perPage, err = strconv.Atoi(v); err != nil || perPage < 0 || perPage > 1<<30 {
			return nil, httpserver.BadRequest("invalid per_page %q: must be a non-negative integer", v)
		}
	}
	resp, err := srv.ListVariables(r.Context(), &structs.VariablesListRequest{
		Prefix:       opts.Prefix,
		Namespace:    opts.Namespace,
		PerPage:      int32(perPage),
		NextToken:    q.Get("next_token"),
		QueryOptions: structs.QueryOptions{MinQueryIndex: opts.MinIndex, MaxQueryTime: opts.Wait, AllowStale: opts.Stale},
	})
	if err != nil {
		return nil, serverReadError(err)
	}
	setStructsQueryMeta(w, resp.QueryMeta)
	if resp.NextToken != "" {
		w.Header().Set(headerNextToken, resp.NextToken)
	}
	out := make([]any, 0, len(resp.Data))
	for _, m := range resp.Data {
		out = append(out, convert.VariableMetadataToAPI(m))
	}
	return out, nil
}

// serverReadError is the error of a read the server refused: no leader
// is a 500 that says so, as in Nomad.
func serverReadError(err error) error {
	if errors.Is(err, nomad.ErrNoLeader) {
		return httpserver.NewError(http.StatusInternalServerError, "No cluster leader")
	}
	return err
}

// setStructsQueryMeta sets the read headers of an RPC-shaped answer.
func setStructsQueryMeta(w http.ResponseWriter, m structs.QueryMeta) {
	httpserver.SetQueryMeta(w, nomad.QueryMeta{Index: m.Index, KnownLeader: m.KnownLeader, LastContact: m.LastContact})
}
