package agent

import (
	"net/http"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// evalsList serves GET /v1/evaluations: the evaluations whose ID starts
// with ?prefix.
func (s *HTTPServer) evalsList(w http.ResponseWriter, r *http.Request) (any, error) {
	opts, err := parseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	return s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		evals, err := st.EvalsByIDPrefix(ws, opts.Namespace, opts.Prefix)
		return listResult(st, state.TableEvals, evalsToAPI(evals), err)
	})
}

// evalRead serves GET /v1/evaluation/:id.
func (s *HTTPServer) evalRead(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := idQuery(r, "evaluation ID")
	if err != nil {
		return nil, err
	}
	related, err := parseBoolParam(r, "related")
	if err != nil {
		return nil, err
	}
	out, err := s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		eval, err := st.EvalByID(ws, id)
		if err != nil {
			return nil, 0, err
		}
		if eval == nil {
			index, err := st.Index(state.TableEvals)
			return (*api.Evaluation)(nil), index, err
		}
		resp := evalToAPI(eval)
		if related {
			siblings, err := st.EvalsByJob(ws, eval.Namespace, eval.JobID)
			if err != nil {
				return nil, 0, err
			}
			resp.RelatedEvals = relatedEvalStubs(eval, siblings)
		}
		return resp, eval.ModifyIndex, nil
	})
	if err != nil {
		return nil, err
	}
	if out.(*api.Evaluation) == nil {
		return nil, notFound("eval not found")
	}
	return out, nil
}

// relatedEvalStubs summarises the evaluations of eval's job other than eval.
func relatedEvalStubs(eval *structs.Evaluation, siblings []*structs.Evaluation) []*api.EvaluationStub {
	stubs := make([]*api.EvaluationStub, 0, len(siblings))
	for _, e := range siblings {
		if e.ID == eval.ID {
			continue
		}
		stubs = append(stubs, evalStub(e))
	}
	return stubs
}

// evalAllocations serves GET /v1/evaluation/:id/allocations: stubs of the
// allocations the evaluation placed or updated.
func (s *HTTPServer) evalAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := idQuery(r, "evaluation ID")
	if err != nil {
		return nil, err
	}
	return s.blockingQuery(w, r, opts, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		allocs, err := st.AllocsByEval(ws, id)
		if err != nil {
			return nil, 0, err
		}
		index, err := st.Index(state.TableAllocs)
		return allocStubs(allocs), index, err
	})
}
