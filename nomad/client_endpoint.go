package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// Client-facing reads. A client watches its allocations in two steps, as
// Nomad's do: a blocking query returns the AllocModifyIndex of every
// allocation placed on the node, and the client then fetches, by ID, only
// the allocations whose index moved. A client's own status reports bump an
// allocation's ModifyIndex but not its AllocModifyIndex, so they cost the
// client a cheap map comparison rather than a download of every job.

// ClientAllocsRequest asks for the allocations of a node, blocking until
// the allocation table's index is above MinIndex or MaxWait (bounded as
// QueryOptions.MaxWait is) has elapsed.
type ClientAllocsRequest struct {
	NodeID   string
	SecretID string
	MinIndex uint64
	MaxWait  time.Duration
}

// ClientAllocsResponse maps each allocation placed on the node to its
// AllocModifyIndex, the index of the last change the servers made to it.
type ClientAllocsResponse struct {
	Allocs map[string]uint64
	Index  uint64
}

// AllocsGetRequest asks for allocations by ID, for the node NodeID, whose
// secret ID proves the caller is it.
type AllocsGetRequest struct {
	AllocIDs []string
	NodeID   string
	SecretID string
	// SharedJobs asks for each job version once, in the response's Jobs,
	// rather than in every allocation that runs it: a client pulling the
	// 10,000 allocations of a job of 10,000 groups would otherwise be
	// sent, and decode, the job 10,000 times. A client that predates it
	// leaves it unset and gets every allocation with its job.
	SharedJobs bool `json:",omitempty"`
}

// AllocsGetResponse holds the allocations found; IDs that are not stored
// are left out. Each allocation holds its job, unless the request asked
// for SharedJobs: then Jobs holds each job version once and JobOf[i] is
// the position in Jobs of the job of Allocs[i] (-1: none), whose own Job
// is left out. AttachJobs puts them back.
type AllocsGetResponse struct {
	Allocs []*structs.Allocation
	Jobs   []*structs.Job `json:",omitempty"`
	JobOf  []int          `json:",omitempty"`
	Index  uint64
}

// withSharedJobs is r for the wire with each job version sent once. The
// allocations are shallow copies: r's are the store's own.
func (r *AllocsGetResponse) withSharedJobs() *AllocsGetResponse {
	out := &AllocsGetResponse{
		Allocs: make([]*structs.Allocation, len(r.Allocs)),
		JobOf:  make([]int, len(r.Allocs)),
		Index:  r.Index,
	}
	position := make(map[structs.JobVersionKey]int)
	for i, a := range r.Allocs {
		slim := *a
		slim.Job = nil
		out.Allocs[i] = &slim
		out.JobOf[i] = -1
		if a.Job == nil {
			continue
		}
		key := a.Job.VersionKey()
		n, ok := position[key]
		if !ok || !a.Job.Versioned() {
			n = len(out.Jobs)
			position[key] = n
			out.Jobs = append(out.Jobs, a.Job)
		}
		out.JobOf[i] = n
	}
	return out
}

// AttachJobs gives every allocation of a response with shared jobs its
// job, one copy per version for all the allocations that run it. A
// response with each job inline is left as it is.
func (r *AllocsGetResponse) AttachJobs() error {
	if r.JobOf == nil {
		return nil
	}
	if len(r.JobOf) != len(r.Allocs) {
		return fmt.Errorf("allocations response: %d job positions for %d allocations", len(r.JobOf), len(r.Allocs))
	}
	for i, n := range r.JobOf {
		switch {
		case n == -1:
		case n < 0 || n >= len(r.Jobs):
			return fmt.Errorf("allocations response: allocation %d names job %d of %d", i, n, len(r.Jobs))
		default:
			r.Allocs[i].Job = r.Jobs[n]
		}
	}
	r.Jobs, r.JobOf = nil, nil
	return nil
}

// GetClientAllocs returns the AllocModifyIndex of every allocation placed
// on nodeID once the allocation table's index is above minIndex, or the
// current one when ctx ends first. It reads this server's state, which may
// trail the leader's by a little: a client only acts on what it is sent.
func (s *Server) GetClientAllocs(ctx context.Context, nodeID string, minIndex uint64) (*ClientAllocsResponse, error) {
	if nodeID == "" {
		return nil, invalidf("client allocations: missing node ID")
	}
	resp, index, err := s.blockingRead(ctx, minIndex, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		allocs, err := st.AllocsByNode(ws, nodeID)
		if err != nil {
			return nil, 0, err
		}
		out := make(map[string]uint64, len(allocs))
		for _, a := range allocs {
			out[a.ID] = a.AllocModifyIndex
		}
		index, err := st.Index(state.TableAllocs)
		// Never 0, even before the first allocation: a client that sent
		// 0 back would not block.
		return out, max(index, 1), err
	})
	if err != nil {
		return nil, fmt.Errorf("client allocations of node %q: %w", nodeID, err)
	}
	return &ClientAllocsResponse{Allocs: resp.(map[string]uint64), Index: index}, nil
}

// GetAllocsByID returns the stored allocations among ids, each with its
// job. The returned values are the store's own: callers must not modify
// them.
func (s *Server) GetAllocsByID(ctx context.Context, ids []string) (*AllocsGetResponse, error) {
	st := s.State()
	out := make([]*structs.Allocation, 0, len(ids))
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		alloc, err := st.AllocByID(nil, id)
		if err != nil {
			return nil, fmt.Errorf("read allocation %q: %w", id, err)
		}
		if alloc != nil {
			out = append(out, alloc)
		}
	}
	index, err := st.Index(state.TableAllocs)
	if err != nil {
		return nil, err
	}
	return &AllocsGetResponse{Allocs: out, Index: index}, nil
}

// GetClientAllocs serves Server.GetClientAllocs to a client agent. It does
// not go through serveClient: a blocking query outlives the forward
// timeout.
func (e *clientRPC) GetClientAllocs(args *ClientAllocsRequest, reply *ClientAllocsResponse) error {
	ctx, cancel := context.WithTimeout(e.srv.shutdownCtx, queryWait(args.MaxWait))
	defer cancel()
	if err := e.srv.checkNodeSecret(ctx, args.NodeID, args.SecretID); err != nil {
		return nomadrpc.EncodeError(err)
	}
	resp, err := e.srv.GetClientAllocs(ctx, args.NodeID, args.MinIndex)
	if err != nil {
		return nomadrpc.EncodeError(err)
	}
	*reply = *resp
	return nil
}

// GetAllocs serves Server.GetAllocsByID to a client agent, for the
// allocations of its own node only: they carry their jobs.
func (e *clientRPC) GetAllocs(args *AllocsGetRequest, reply *AllocsGetResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		if err := e.srv.checkNodeSecret(ctx, args.NodeID, args.SecretID); err != nil {
			return err
		}
		resp, err := e.srv.GetAllocsByID(ctx, args.AllocIDs)
		if err != nil {
			return err
		}
		for _, a := range resp.Allocs {
			if a.NodeID != args.NodeID {
				return permissionDenied("allocation %s is not on node %s", a.ID, args.NodeID)
			}
		}
		if args.SharedJobs {
			resp = resp.withSharedJobs()
		}
		*reply = *resp
		return nil
	})
}
