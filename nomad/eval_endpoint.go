package nomad

import (
	"context"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// EvalUpsertRequest creates or updates evaluations.
type EvalUpsertRequest struct {
	WriteDeadline
	Evals []*structs.Evaluation
}

// IndexResponse is the raft index a write was applied at.
type IndexResponse struct {
	Index uint64
}

// UpsertEvals creates or updates evaluations and returns the index they
// were written at.
func (s *Server) UpsertEvals(ctx context.Context, evals []*structs.Evaluation) (uint64, error) {
	resp, err := leaderWrite(ctx, s, "Eval.Upsert", &EvalUpsertRequest{Evals: evals}, s.upsertEvalsLocal)
	if err != nil {
		return 0, err
	}
	return resp.Index, nil
}

func (s *Server) upsertEvalsLocal(ctx context.Context, req *EvalUpsertRequest) (*IndexResponse, error) {
	index, err := s.raftApply(ctx, logentry.MsgEvalUpdate, &logentry.EvalUpdate{Evals: req.Evals})
	if err != nil {
		return nil, err
	}
	return &IndexResponse{Index: index}, nil
}

// evalRPC serves the evaluation writes forwarded by other servers.
type evalRPC struct{ srv *Server }

// Upsert serves UpsertEvals.
func (e *evalRPC) Upsert(args *EvalUpsertRequest, reply *IndexResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		index, err := e.srv.UpsertEvals(ctx, args.Evals)
		reply.Index = index
		return err
	})
}

// updateEvals writes evaluations through raft, for the leader's reaper.
func (s *Server) updateEvals(ctx context.Context, evals []*structs.Evaluation) error {
	_, err := s.raftApply(ctx, logentry.MsgEvalUpdate, &logentry.EvalUpdate{Evals: evals})
	return err
}
