package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-io/drover/nomad/gc"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
)

// SystemRequest is a system write (`system gc`, `system reconcile
// summaries`); it carries nothing but the caller's token.
type SystemRequest struct {
	AuthRequest
	WriteDeadline
}

// SystemGCResponse reports a forced garbage collection: what it removed
// and the index it was written at (0 when it removed nothing).
type SystemGCResponse struct {
	Jobs, Evals, Allocs, Nodes int
	Index                      uint64
}

// GarbageCollect collects now, ignoring the thresholds (Nomad's `system
// gc`), and answers once the deletions are applied. It needs a
// management token.
func (s *Server) GarbageCollect(ctx context.Context) (*SystemGCResponse, error) {
	return userWrite(ctx, s, "System.GarbageCollect", &SystemRequest{}, management, func(ctx context.Context, _ *SystemRequest) (*SystemGCResponse, error) {
		res, index, err := s.collect(ctx, true)
		if err != nil {
			return nil, err
		}
		return &SystemGCResponse{Jobs: len(res.Jobs), Evals: len(res.Evals), Allocs: len(res.Allocs), Nodes: len(res.Nodes), Index: index}, nil
	})
}

// ReconcileSummaries is Nomad's `system reconcile summaries`. Drover
// derives a job's summary from its allocations whenever it is read, so
// a summary can never drift and there is nothing to rebuild; the call
// still needs a management token, as Nomad's does, and runs on the
// leader so that it answers only once one is known.
func (s *Server) ReconcileSummaries(ctx context.Context) (*IndexResponse, error) {
	return userWrite(ctx, s, "System.ReconcileSummaries", &SystemRequest{}, management, func(ctx context.Context, _ *SystemRequest) (*IndexResponse, error) {
		index, err := s.State().LatestIndex()
		if err != nil {
			return nil, err
		}
		return &IndexResponse{Index: index}, nil
	})
}

// collectGarbage runs one pass of garbage collection: the Collector's.
func (s *Server) collectGarbage(ctx context.Context, force bool) (*gc.Result, error) {
	res, _, err := s.collect(ctx, force)
	return res, err
}

// collect plans a pass on the leader's state and writes it through raft,
// in entries of at most logentry.MaxGCBatch objects. It returns the index
// of the last entry.
func (s *Server) collect(ctx context.Context, force bool) (*gc.Result, uint64, error) {
	s.gcMu.Lock()
	defer s.gcMu.Unlock()
	st := s.State()
	var objs gc.Objects
	var err error
	if objs.Jobs, err = st.Jobs(nil); err != nil {
		return nil, 0, err
	}
	if objs.Evals, err = st.Evals(nil); err != nil {
		return nil, 0, err
	}
	if objs.Allocs, err = st.Allocs(nil); err != nil {
		return nil, 0, err
	}
	if objs.Nodes, err = st.Nodes(nil); err != nil {
		return nil, 0, err
	}
	res := gc.Plan(objs, s.config.GCThresholds, time.Now(), force)
	var index uint64
	for _, batch := range splitGarbage(res, logentry.MaxGCBatch) {
		if index, err = s.raftApply(ctx, logentry.MsgGCDelete, &logentry.GCDelete{Garbage: batch}); err != nil {
			return nil, 0, fmt.Errorf("garbage collection: %w", err)
		}
	}
	if !res.Empty() {
		s.logger.Info("garbage collected", "jobs", len(res.Jobs), "evals", len(res.Evals),
			"allocs", len(res.Allocs), "nodes", len(res.Nodes), "forced", force)
	}
	return res, index, nil
}

// splitGarbage cuts g into parts of at most n objects, jobs first so
// that a job goes before the evaluations and allocations it held.
func splitGarbage(g *state.Garbage, n int) []*state.Garbage {
	var parts []*state.Garbage
	cur := &state.Garbage{}
	room := func() {
		if cur.Count() >= n {
			parts = append(parts, cur)
			cur = &state.Garbage{}
		}
	}
	for _, j := range g.Jobs {
		room()
		cur.Jobs = append(cur.Jobs, j)
	}
	for _, id := range g.Evals {
		room()
		cur.Evals = append(cur.Evals, id)
	}
	for _, id := range g.Allocs {
		room()
		cur.Allocs = append(cur.Allocs, id)
	}
	for _, node := range g.Nodes {
		room()
		cur.Nodes = append(cur.Nodes, node)
	}
	if !cur.Empty() {
		parts = append(parts, cur)
	}
	return parts
}

// systemRPC serves the system writes forwarded by other servers.
type systemRPC struct{ srv *Server }

// GarbageCollect serves GarbageCollect.
func (e *systemRPC) GarbageCollect(args *SystemRequest, reply *SystemGCResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.GarbageCollect(ctx))
	})
}

// ReconcileSummaries serves ReconcileSummaries.
func (e *systemRPC) ReconcileSummaries(args *SystemRequest, reply *IndexResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.ReconcileSummaries(ctx))
	})
}
