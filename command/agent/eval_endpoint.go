package agent

import (
	"context"
	"net/http"

	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// evalsList serves GET /v1/evaluations: the evaluations whose ID starts
// with ?prefix.
func (s *HTTPServer) evalsList(w http.ResponseWriter, r *http.Request) (any, error) {
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	evals, err := serveRead(s, w, r, opts, (*nomad.Server).ListEvals)
	if err != nil {
		return nil, err
	}
	return convert.EvalsToAPI(evals), nil
}

// evalRead serves GET /v1/evaluation/:id.
func (s *HTTPServer) evalRead(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "evaluation ID")
	if err != nil {
		return nil, err
	}
	related, err := httpserver.ParseBoolParam(r, "related")
	if err != nil {
		return nil, err
	}
	info, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) (*nomad.EvalInfo, nomad.QueryMeta, error) {
		return srv.GetEval(ctx, id, related, q)
	})
	if err != nil {
		return nil, err
	}
	if info == nil {
		return nil, httpserver.NotFound("eval not found")
	}
	resp := convert.EvalToAPI(info.Eval)
	if related {
		resp.RelatedEvals = convert.List(info.Related, convert.EvalStub)
	}
	return resp, nil
}

// evalAllocations serves GET /v1/evaluation/:id/allocations: stubs of the
// allocations the evaluation placed or updated.
func (s *HTTPServer) evalAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "evaluation ID")
	if err != nil {
		return nil, err
	}
	allocs, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) ([]*structs.Allocation, nomad.QueryMeta, error) {
		return srv.EvalAllocations(ctx, id, q)
	})
	if err != nil {
		return nil, err
	}
	return convert.AllocStubs(allocs), nil
}
