package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-io/drover/nomad/auth"
)

// NodeEvaluate creates an evaluation for every job with allocations on the
// node and for every system and sysbatch job, which may run there, as a
// node that becomes ready gets: an operator's way to have the schedulers
// look at a node again (Nomad's node evaluate). A node with nothing to
// evaluate creates no evaluation, and the answer is at the node's index.
func (s *Server) NodeEvaluate(ctx context.Context, nodeID string) (*NodeUpdateResponse, error) {
	if nodeID == "" {
		return nil, invalidf("missing node ID")
	}
	if err := s.authorize(ctx, auth.NodeWrite); err != nil {
		return nil, err
	}
	// The evaluations are built from this server's state, which must hold
	// every write answered so far, as a read that is not stale does.
	if err := s.catchUpForRead(ctx); err != nil {
		return nil, err
	}
	st := s.State()
	node, err := st.NodeByID(nil, nodeID)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, fmt.Errorf("node %q: %w", nodeID, ErrNotFound)
	}
	evals, err := nodeEvals(st, nodeID, time.Now().UnixNano())
	if err != nil {
		return nil, err
	}
	resp := &NodeUpdateResponse{NodeModifyIndex: node.ModifyIndex, Index: node.ModifyIndex}
	if len(evals) == 0 {
		return resp, nil
	}
	index, err := s.UpsertEvals(ctx, evals)
	if err != nil {
		return nil, err
	}
	resp.EvalIDs, resp.EvalCreateIndex, resp.Index = evalIDs(evals), index, index
	return resp, nil
}
