package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

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
}

// AllocsGetResponse holds the allocations found, each with its job; IDs
// that are not stored are left out.
type AllocsGetResponse struct {
	Allocs []*structs.Allocation
	Index  uint64
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
		return encodeRPCError(err)
	}
	resp, err := e.srv.GetClientAllocs(ctx, args.NodeID, args.MinIndex)
	if err != nil {
		return encodeRPCError(err)
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
		*reply = *resp
		return nil
	})
}
