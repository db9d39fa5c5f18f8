package nomad

import (
	"context"
	"time"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/structs"
)

// A task may move its own allocation's deadline with its workload
// identity (the token the client hands it, NOMAD_TOKEN or its identity
// file), through the same write as an operator's `alloc deadline`:
// only for its own allocation, and only up to the max_run_extension its
// job sets beyond the group's max_run_duration. An operator with
// alloc-lifecycle is bound by neither.

// allowSelfMaxRunCaller lets a workload identity through only to its own
// allocation. An allocation that does not exist is refused as well: a
// workload's own allocation always exists while its identity is valid.
func (s *Server) allowSelfMaxRunCaller(a *acl.ACL, allocID string) error {
	w := a.Workload()
	alloc, err := s.State().AllocByID(nil, allocID)
	if err != nil {
		return err
	}
	if alloc == nil || !a.AllowWorkloadAlloc(alloc.Namespace, alloc.ID) {
		return auth.Denied("the workload identity of allocation %s may change only its own allocation's max_run_duration, not %s's",
			w.AllocationID, allocID)
	}
	return nil
}

// allowSelfMaxRun checks, for a write a workload identity makes, that
// budget is within its allocation's ceiling (structs.Allocation.CheckSelfMaxRun).
// Any other caller passed its own check already.
func allowSelfMaxRun(ctx context.Context, alloc *structs.Allocation, budget time.Duration) error {
	a, ok := auth.Caller(ctx)
	if !ok || a.Workload() == nil {
		return nil
	}
	if !a.AllowWorkloadAlloc(alloc.Namespace, alloc.ID) {
		return auth.Denied("a workload identity may change only its own allocation's max_run_duration")
	}
	if err := alloc.CheckSelfMaxRun(budget); err != nil {
		return auth.Denied("alloc max_run_duration: %v", err)
	}
	return nil
}
