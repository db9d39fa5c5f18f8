package nomad

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// AllocMaxRunRequest changes the max_run_duration of one running
// allocation.
type AllocMaxRunRequest struct {
	AuthRequest
	WriteDeadline
	AllocID string
	// Budget is the allocation's new max_run_duration, counted from its
	// CreateTime as before.
	Budget time.Duration
}

// AllocMaxRunResponse reports the change: the allocation's budget and
// deadline as they now are (structs.Allocation.MaxRun).
type AllocMaxRunResponse struct {
	MaxRun structs.MaxRun
	Index  uint64
}

// AllocSetMaxRunDuration gives one running allocation of a batch or
// sysbatch job a new max_run_duration on the same anchor, its CreateTime,
// through raft; the allocation's client re-arms its deadline in place. The
// change replaces the group's max_run_duration for this allocation until a
// job version changes the group's. The allocation's namespace may bound
// how far past the group's budget the change goes
// (NamespaceTimeLimits.AllocDeadlineExtensionMax). An unknown allocation is an ErrNotFound
// error; one that has ended, of another job type, or a budget that is not
// positive or puts the deadline beyond the year 2262, an
// ErrInvalidRequest one.
func (s *Server) AllocSetMaxRunDuration(ctx context.Context, allocID string, budget time.Duration) (*AllocMaxRunResponse, error) {
	return userWrite(ctx, s, "Alloc.SetMaxRunDuration", &AllocMaxRunRequest{AllocID: allocID, Budget: budget}, s.allowAllocSetMaxRun, s.allocSetMaxRunLocal)
}

func (s *Server) allocSetMaxRunLocal(ctx context.Context, req *AllocMaxRunRequest) (*AllocMaxRunResponse, error) {
	if req.Budget <= 0 {
		return nil, invalidf("alloc max_run_duration: MaxRunDuration must be greater than zero, got %s", req.Budget)
	}
	alloc, err := s.leaderAlloc(ctx, "alloc max_run_duration", req.AllocID)
	if err != nil {
		return nil, err
	}
	override, err := maxRunOverrideFor(alloc, req.Budget)
	if err != nil {
		return nil, err
	}
	if err := allowSelfMaxRun(ctx, alloc, req.Budget); err != nil {
		return nil, err
	}
	ns, err := s.State().NamespaceByName(nil, alloc.Namespace)
	if err != nil {
		return nil, err
	}
	if err := ns.CheckMaxRunChange(override.Budget, override.Replaces); err != nil {
		return nil, invalidf("alloc max_run_duration: allocation %s: %v", alloc.ID, err)
	}
	index, err := s.raftApply(ctx, logentry.MsgAllocMaxRunOverride, &logentry.AllocMaxRun{AllocID: alloc.ID, Override: override})
	if err != nil {
		return nil, err
	}
	changed := *alloc
	changed.MaxRunOverride = &override
	return &AllocMaxRunResponse{MaxRun: changed.MaxRun(), Index: index}, nil
}

// maxRunOverrideFor is the change that gives alloc the budget, or why it
// cannot have it: it must run (not have ended, nor be meant to stop), be of
// a job type that allows a budget, and have a deadline Unix nanoseconds
// can hold.
func maxRunOverrideFor(alloc *structs.Allocation, budget time.Duration) (structs.MaxRunOverride, error) {
	var none structs.MaxRunOverride
	if alloc.TerminalStatus() {
		return none, invalidf("alloc max_run_duration: allocation %s has ended (client status %q, desired status %q)",
			alloc.ID, alloc.ClientStatus, alloc.DesiredStatus)
	}
	tg := alloc.LookupTaskGroup()
	if tg == nil {
		return none, fmt.Errorf("alloc max_run_duration: allocation %s has no group %q in its job", alloc.ID, alloc.TaskGroup)
	}
	if !structs.AllowsMaxRunDuration(alloc.Job.Type) {
		return none, invalidf("alloc max_run_duration: job type %q does not allow max_run_duration", alloc.Job.Type)
	}
	if alloc.CreateTime > 0 && int64(budget) > math.MaxInt64-alloc.CreateTime {
		return none, invalidf("alloc max_run_duration: %s from the allocation's creation is beyond the year 2262", budget)
	}
	return structs.MaxRunOverride{Budget: budget, Replaces: tg.MaxRunBudget()}, nil
}

// SetMaxRunDuration serves AllocSetMaxRunDuration.
func (e *allocRPC) SetMaxRunDuration(args *AllocMaxRunRequest, reply *AllocMaxRunResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.AllocSetMaxRunDuration(ctx, args.AllocID, args.Budget))
	})
}
