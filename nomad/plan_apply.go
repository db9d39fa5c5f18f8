package nomad

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-metrics"
	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/broker"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/planeval"
	"github.com/drover-io/drover/structs"
)

// planInFlight is a plan whose raft entry is being committed while the
// applier checks the next one.
type planInFlight struct {
	// allocs are the plan's allocations by node, as committed, until the
	// entry is applied and the state holds them: the applier keeps the
	// last plan while it waits for the next, and a plan of thousands of
	// allocations must not stay in memory twice.
	allocs atomic.Pointer[map[string][]*structs.Allocation]
	done   chan struct{}
}

func (f *planInFlight) finished() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// runPlanApplier applies the queued plans one at a time until ctx ends:
// it checks each plan against the latest state, commits what still fits
// through raft and reports to the submitting worker. The check of the
// next plan overlaps the commit of the previous one, which it counts as
// committed; at most one commit is in flight.
func (s *Server) runPlanApplier(ctx context.Context) {
	var inflight *planInFlight
	defer func() {
		if inflight != nil {
			<-inflight.done
		}
	}()
	for {
		pending, err := s.planQueue.Dequeue(ctx)
		if err != nil {
			return
		}
		start := time.Now()
		if inflight != nil && inflight.finished() {
			inflight = nil
		}
		view, err := s.planView(inflight)
		if err != nil {
			pending.Respond(nil, err)
			continue
		}
		result, rejected, err := planeval.Evaluate(view, pending.Plan)
		metrics.MeasureSince([]string{"plan", "evaluate"}, start)
		if err != nil {
			pending.Respond(nil, err)
			continue
		}
		for node, reason := range rejected {
			s.logger.Debug("plan rejected on node", "eval_id", pending.Plan.EvalID, "node_id", node, "reason", reason)
		}
		if inflight != nil {
			<-inflight.done
			inflight = nil
		}
		if len(result.NodeUpdate) == 0 && len(result.NodeAllocation) == 0 &&
			pending.Plan.Deployment == nil && len(pending.Plan.DeploymentUpdates) == 0 {
			s.finishPlan(pending, result, rejected != nil, start, 0)
			continue
		}
		inflight = s.commitPlan(pending, result, rejected != nil, start)
	}
}

// planView is the latest state, with the allocations of the plan in
// flight on top.
func (s *Server) planView(inflight *planInFlight) (*planeval.View, error) {
	// The allocations first: once they are gone, the state has them, so
	// a snapshot taken after has them too.
	var allocs map[string][]*structs.Allocation
	if inflight != nil {
		if p := inflight.allocs.Load(); p != nil {
			allocs = *p
		}
	}
	snap, err := s.State().Snapshot()
	if err != nil {
		return nil, fmt.Errorf("snapshot state for plan: %w", err)
	}
	return &planeval.View{Snap: snap, Inflight: allocs}, nil
}

// commitPlan starts the raft commit of what a plan may commit and reports
// to the worker once it is applied.
func (s *Server) commitPlan(pending *broker.PendingPlan, result *structs.PlanResult, partial bool, start time.Time) *planInFlight {
	entry := planEntry(pending.Plan, result, time.Now().UnixNano())
	allocs := make(map[string][]*structs.Allocation)
	for _, a := range entry.Allocs {
		allocs[a.NodeID] = append(allocs[a.NodeID], a)
	}
	f := &planInFlight{done: make(chan struct{})}
	f.allocs.Store(&allocs)
	finished := func() {
		f.allocs.Store(nil)
		close(f.done)
	}
	future, err := s.startRaftApply(logentry.MsgAllocUpdate, entry)
	if err != nil {
		pending.Respond(nil, fmt.Errorf("commit plan of evaluation %s: %w", pending.Plan.EvalID, err))
		finished()
		return f
	}
	s.loops.Add(1)
	go func() {
		defer s.loops.Done()
		defer finished()
		if err := waitRaftApply(future); err != nil {
			pending.Respond(nil, fmt.Errorf("commit plan of evaluation %s: %w", pending.Plan.EvalID, err))
			return
		}
		s.finishPlan(pending, result, partial, start, future.Index())
	}()
	return f
}

// finishPlan reports a plan's outcome. A plan not committed in full tells
// the scheduler which state index to read before it tries again.
func (s *Server) finishPlan(pending *broker.PendingPlan, result *structs.PlanResult, partial bool, start time.Time, index uint64) {
	result.AllocIndex = index
	if partial {
		latest, err := s.State().LatestIndex()
		if err != nil {
			pending.Respond(nil, err)
			return
		}
		result.RefreshIndex = max(latest, index)
	}
	metrics.MeasureSince([]string{"plan", "apply"}, start)
	s.planLatency.Record(time.Since(start))
	metrics.MeasureSince([]string{"plan", "submit"}, pending.Enqueued)
	s.planSubmitLatency.Record(time.Since(pending.Enqueued))
	pending.Respond(result, nil)
}

// planEntry is the raft entry that commits a plan's result. Allocations
// are copies with their times set: CreateTime for new ones (the store
// keeps the original of an existing allocation), ModifyTime for all. The
// plan's job travels once, not in every allocation that runs it, and an
// allocation that is done, or to stop, travels without the job it ran,
// which the store keeps: an entry's size does not grow with its
// allocations times the job's.
func planEntry(plan *structs.Plan, result *structs.PlanResult, now int64) *logentry.AllocUpdate {
	entry := &logentry.AllocUpdate{}
	add := func(a *structs.Allocation) {
		c := *a
		if c.CreateTime == 0 {
			c.CreateTime = now
		}
		c.ModifyTime = now
		switch {
		case c.Job == nil:
		case c.Job == plan.Job, plan.Job.Versioned() && c.Job.VersionKey() == plan.Job.VersionKey():
			c.Job = nil
		case c.TerminalStatus():
			c.Job = nil
		}
		if c.Job == nil && !c.TerminalStatus() {
			entry.Job = plan.Job
		}
		entry.Allocs = append(entry.Allocs, &c)
	}
	for _, allocs := range result.NodeUpdate {
		for _, a := range allocs {
			add(a)
		}
	}
	for _, allocs := range result.NodeAllocation {
		for _, a := range allocs {
			add(a)
		}
	}
	if d := plan.Deployment; d != nil {
		c := d.Copy()
		if c.CreateTime == 0 {
			c.CreateTime = now
		}
		c.ModifyTime = now
		entry.Deployment = c
	}
	entry.DeploymentUpdates = plan.DeploymentUpdates
	if len(entry.DeploymentUpdates) > 0 {
		entry.Now = now
	}
	return entry
}

// startRaftApply validates and encodes an entry and hands it to raft
// without waiting for the commit.
func (s *Server) startRaftApply(t logentry.MessageType, entry logentry.Entry) (raft.ApplyFuture, error) {
	if err := entry.Validate(); err != nil {
		return nil, err
	}
	data, err := logentry.Encode(t, entry)
	if err != nil {
		return nil, err
	}
	return s.raft.Apply(data, s.config.RaftApplyTimeout), nil
}

// waitRaftApply waits for an entry's commit and returns the error raft or
// the FSM reported.
func waitRaftApply(future raft.ApplyFuture) error {
	if err := future.Error(); err != nil {
		return raftWriteError(err)
	}
	if err, ok := future.Response().(error); ok && err != nil {
		return err
	}
	return nil
}
