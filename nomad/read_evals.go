package nomad

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// EvalInfo is an evaluation and, when asked for, the other evaluations of
// its job.
type EvalInfo struct {
	Eval    *structs.Evaluation
	Related []*structs.Evaluation
}

// ListEvals returns the evaluations of q.Namespace whose ID starts with
// q.Prefix, sorted by ID, of the namespaces where q.ACL may read jobs.
func (s *Server) ListEvals(ctx context.Context, q QueryOptions) ([]*structs.Evaluation, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Evaluation, uint64, error) {
		evals, err := st.EvalsByIDPrefix(ws, q.Namespace, q.Prefix)
		evals = visible(q, evals, func(e *structs.Evaluation) string { return e.Namespace }, acl.CapReadJob)
		return resultAt(st, evals, err, state.TableEvals)
	})
}

// GetEval returns the evaluation with the given ID, nil when there is
// none; with related, also the other evaluations of its job, read at the
// same point in time. The answer is at the evaluation's own index.
func (s *Server) GetEval(ctx context.Context, id string, related bool, q QueryOptions) (*EvalInfo, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*EvalInfo, uint64, error) {
		eval, err := st.EvalByID(ws, id)
		if err != nil {
			return nil, 0, err
		}
		if eval == nil {
			index, err := st.Index(state.TableEvals)
			return nil, index, err
		}
		info := &EvalInfo{Eval: eval}
		if related {
			siblings, err := st.EvalsByJob(ws, eval.Namespace, eval.JobID)
			if err != nil {
				return nil, 0, err
			}
			for _, e := range siblings {
				if e.ID != eval.ID {
					info.Related = append(info.Related, e)
				}
			}
		}
		return info, eval.ModifyIndex, nil
	})
}

// EvalAllocations returns the allocations the evaluation with the given ID
// placed or updated.
func (s *Server) EvalAllocations(ctx context.Context, evalID string, q QueryOptions) ([]*structs.Allocation, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Allocation, uint64, error) {
		allocs, err := st.AllocsByEval(ws, evalID)
		return resultAt(st, allocs, err, state.TableAllocs)
	})
}
