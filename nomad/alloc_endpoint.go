package nomad

import (
	"context"
	"time"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// allocStopDescription is the DesiredDescription of an allocation a user
// stopped.
const allocStopDescription = "alloc was stopped by user"

// AllocStopRequest stops one allocation.
type AllocStopRequest struct {
	AuthRequest
	WriteDeadline
	AllocID string
}

// AllocStopResponse reports a stop and the evaluation it created.
type AllocStopResponse struct {
	EvalID string
	Index  uint64
}

// AllocClientUpdateRequest carries what a client reports about its
// allocations.
type AllocClientUpdateRequest struct {
	WriteDeadline
	Allocs []*structs.Allocation

	// NodeID and SecretID are the reporting node and the proof that the
	// caller is it. With a NodeID, the leader takes updates only for
	// allocations placed on that node.
	NodeID   string
	SecretID string
}

// AllocStop marks an allocation to be stopped and creates an evaluation of
// its job, whose scheduler stops it (and replaces it if the job still wants
// it). An unknown allocation is an ErrNotFound error.
func (s *Server) AllocStop(ctx context.Context, allocID string) (*AllocStopResponse, error) {
	return userWrite(ctx, s, "Alloc.Stop", &AllocStopRequest{AllocID: allocID}, s.allowAllocStop, s.allocStopLocal)
}

func (s *Server) allocStopLocal(ctx context.Context, req *AllocStopRequest) (*AllocStopResponse, error) {
	alloc, err := s.leaderAlloc(ctx, "alloc stop", req.AllocID)
	if err != nil {
		return nil, err
	}
	eval := allocJobEval(s.State(), alloc, structs.EvalTriggerAllocStop, time.Now().UnixNano())
	entry := &logentry.AllocDesiredStatus{
		AllocIDs: []string{alloc.ID},
		Desired:  structs.AllocDesiredStatusStop,
		Desc:     allocStopDescription,
		Evals:    []*structs.Evaluation{eval},
	}
	index, err := s.raftApply(ctx, logentry.MsgAllocDesiredStatus, entry)
	if err != nil {
		return nil, err
	}
	return &AllocStopResponse{EvalID: eval.ID, Index: index}, nil
}

// UpdateAllocsFromClient records what clients report about their
// allocations: client status, description, task states and modify time.
// Allocations that newly failed get an evaluation of their job, so that the
// scheduler can replace them.
func (s *Server) UpdateAllocsFromClient(ctx context.Context, allocs []*structs.Allocation) (uint64, error) {
	resp, err := leaderWrite(ctx, s, "Alloc.UpdateFromClient", &AllocClientUpdateRequest{Allocs: allocs}, s.updateAllocsFromClientLocal)
	if err != nil {
		return 0, err
	}
	return resp.Index, nil
}

func (s *Server) updateAllocsFromClientLocal(ctx context.Context, req *AllocClientUpdateRequest) (*IndexResponse, error) {
	if len(req.Allocs) == 0 {
		return nil, invalidf("alloc client update: no allocations")
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	st := s.State()
	if req.NodeID != "" {
		if err := allocsOnNode(st, req.NodeID, req.Allocs); err != nil {
			return nil, err
		}
	}
	entry := &logentry.AllocClientUpdate{Allocs: make([]*structs.Allocation, 0, len(req.Allocs))}
	evaluated := make(map[[2]string]bool)
	for i, update := range req.Allocs {
		if update == nil {
			return nil, invalidf("alloc client update: allocation %d is nil", i)
		}
		// Only what the client owns travels through the log.
		slim := &structs.Allocation{
			ID:                update.ID,
			ClientStatus:      update.ClientStatus,
			ClientDescription: update.ClientDescription,
			TaskStates:        update.TaskStates,
			NetworkStatus:     update.NetworkStatus,
			DeploymentStatus:  update.DeploymentStatus,
			ModifyTime:        update.ModifyTime,
		}
		if slim.ModifyTime == 0 {
			slim.ModifyTime = now
		}
		entry.Allocs = append(entry.Allocs, slim)

		if update.ClientStatus != structs.AllocClientStatusFailed && !timedOutUnderPolicy(st, update) {
			continue
		}
		eval, err := failedAllocEval(st, update.ID, now)
		if err != nil {
			return nil, err
		}
		if eval != nil && !evaluated[[2]string{eval.Namespace, eval.JobID}] {
			evaluated[[2]string{eval.Namespace, eval.JobID}] = true
			entry.Evals = append(entry.Evals, eval)
		}
	}
	index, err := s.raftApply(ctx, logentry.MsgAllocClientUpdate, entry)
	if err != nil {
		return nil, err
	}
	return &IndexResponse{Index: index}, nil
}

// allocsOnNode refuses updates of allocations that are stored on another
// node than nodeID: a node reports on its own allocations only. An
// allocation the servers no longer store is let through; the state store
// skips it.
func allocsOnNode(st *state.StateStore, nodeID string, updates []*structs.Allocation) error {
	for i, update := range updates {
		if update == nil {
			return invalidf("alloc client update: allocation %d is nil", i)
		}
		stored, err := st.AllocByID(nil, update.ID)
		if err != nil {
			return err
		}
		if stored != nil && stored.NodeID != nodeID {
			return permissionDenied("allocation %s is not on node %s", update.ID, nodeID)
		}
	}
	return nil
}

// failedAllocEval returns the evaluation that lets the scheduler replace a
// newly failed allocation, or nil when there is nothing to replace.
func failedAllocEval(st *state.StateStore, allocID string, now int64) (*structs.Evaluation, error) {
	stored, err := st.AllocByID(nil, allocID)
	if err != nil || stored == nil {
		return nil, err
	}
	if stored.ClientTerminalStatus() || stored.DesiredStatus != structs.AllocDesiredStatusRun {
		return nil, nil // already handled, or meant to stop anyway
	}
	job, err := st.JobByID(nil, stored.Namespace, stored.JobID)
	if err != nil || job == nil || job.Stop || !structs.Reschedules(job.Type) {
		return nil, err
	}
	return allocJobEval(st, stored, structs.EvalTriggerRetryFailedAlloc, now), nil
}

// timedOutUnderPolicy reports whether update ends an allocation complete
// because a deadline stopped it, in a group with on_failure rules: the
// rules may still ask for it to run again, or end the job, so the
// scheduler has to look at it as at a failure.
func timedOutUnderPolicy(st *state.StateStore, update *structs.Allocation) bool {
	if update.ClientStatus != structs.AllocClientStatusComplete || !structs.ExceededMaxRun(update.ClientDescription) {
		return false
	}
	stored, err := st.AllocByID(nil, update.ID)
	if err != nil || stored == nil {
		return false
	}
	tg := stored.LookupTaskGroup()
	return tg != nil && len(tg.OnFailure) > 0
}

// allocJobEval returns a pending evaluation of an allocation's job.
func allocJobEval(st *state.StateStore, alloc *structs.Allocation, trigger string, now int64) *structs.Evaluation {
	job := alloc.Job
	if stored, err := st.JobByID(nil, alloc.Namespace, alloc.JobID); err == nil && stored != nil {
		job = stored
	}
	priority, jobType := structs.DefaultPriority, ""
	if job != nil {
		priority, jobType = job.Priority, job.Type
	}
	return &structs.Evaluation{
		ID:          structs.GenerateUUID(),
		Namespace:   alloc.Namespace,
		Priority:    priority,
		Type:        jobType,
		TriggeredBy: trigger,
		JobID:       alloc.JobID,
		Status:      structs.EvalStatusPending,
		CreateTime:  now,
		ModifyTime:  now,
	}
}

// allocRPC serves the allocation writes forwarded by other servers.
type allocRPC struct{ srv *Server }

// Stop serves AllocStop.
func (e *allocRPC) Stop(args *AllocStopRequest, reply *AllocStopResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.AllocStop(ctx, args.AllocID))
	})
}

// UpdateFromClient serves UpdateAllocsFromClient.
func (e *allocRPC) UpdateFromClient(args *AllocClientUpdateRequest, reply *IndexResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		index, err := e.srv.UpdateAllocsFromClient(ctx, args.Allocs)
		reply.Index = index
		return err
	})
}
