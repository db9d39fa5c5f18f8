package nomad

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
)

// Read-your-writes. Any server answers a write only once the leader has
// applied it, but a follower applies the same entry a little later, so a
// read sent to the follower right after a write it forwarded would not
// see the write (`job run` against a follower would not find the
// evaluation it just created). A read that is not stale therefore catches
// up first:
//
//   - on a follower, it asks the leader for its read index, the index of
//     the last log entry the leader's state holds in full, which covers
//     every write any server has answered, and waits until its own state
//     holds that entry in full too;
//   - on the leader, it waits until the state holds every entry committed
//     before the leader's term (the leader barrier, once per term), since
//     a new leader may not have applied what its predecessor answered;
//     and it confirms, by a round of heartbeats that a majority answers,
//     that it still leads. A leader that was stopped or cut off, and
//     that the others replaced meanwhile, would otherwise answer from a
//     state that no longer holds every answered write (the partition
//     suite saw a thawed leader do it), and so would the read index it
//     gives followers.
//
// Then the read runs on local state, as before. A stale read skips all of
// this and answers at once from what the server holds.
//
// Nomad gets the same guarantee by forwarding non-stale reads to the
// leader. Drover's reads are closures over the local state (read.go), so
// forwarding would need an RPC endpoint and a wire form for every read;
// catching up costs one small RPC per read and keeps the reads, their
// blocking and their filtering where they are, on the server that was
// asked. It is the read-index scheme of the raft paper (section 6.4),
// with the read index taken from the leader's state rather than raft's
// commit index, since the FSM never sees raft's own entries (no-ops,
// barriers, configuration changes) and could never reach such an index.
// The index is the FSM's applied index (state.AppliedIndex), not a table's:
// an entry writes its tables one after the other, and a follower that
// has written the job of a registration may not have written its
// evaluation yet.
//
// A server also remembers whether its state has caught up with a leader
// since it started: until it has, it reports no known leader (the
// X-Nomad-KnownLeader header), so that a stale read of a server that has
// just restarted and not yet replayed the log is not taken for an
// authoritative answer.

// ReadIndexRequest asks the leader for its read index.
type ReadIndexRequest struct{}

// ReadIndexResponse is the leader's read index.
type ReadIndexResponse struct {
	Index uint64
}

// ReadIndex serves a follower's catch-up before a read: the leader answers
// the index of the last entry its state holds in full.
func (e *statusRPC) ReadIndex(_ *ReadIndexRequest, reply *ReadIndexResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		index, err := e.srv.leaderReadIndex(ctx)
		reply.Index = index
		return err
	})
}

// leaderReadIndex is the read index of this server, which must lead: the
// applied index of its state once that state holds every entry committed
// before its term.
func (s *Server) leaderReadIndex(ctx context.Context) (uint64, error) {
	if !s.IsLeader() {
		return 0, nomadrpc.ErrNotLeader
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return 0, err
	}
	if err := s.confirmLeadership(); err != nil {
		return 0, err
	}
	return s.State().AppliedIndex(nil)
}

// confirmLeadership checks that a majority of the servers still take this
// one for their leader (raft section 6.4): the state it holds then has
// every write the cluster answered. A server that has been replaced is
// errNotLeader.
func (s *Server) confirmLeadership() error {
	if err := s.raft.VerifyLeader().Error(); err != nil {
		return fmt.Errorf("confirm the leadership before a read: %w", raftWriteError(err))
	}
	return nil
}

// catchUpForRead waits until this server's state holds every write the
// cluster has answered so far, as a read that is not stale needs; see
// above. It gives up after the forward timeout, as a forwarded write does.
func (s *Server) catchUpForRead(ctx context.Context) error {
	ctx, cancel := s.writeContext(ctx)
	defer cancel()
	for {
		if s.IsLeader() {
			_, err := s.leaderReadIndex(ctx)
			if errors.Is(err, nomadrpc.ErrNotLeader) && ctx.Err() == nil {
				continue // lost the leadership meanwhile: catch up as a follower
			}
			if err != nil {
				return fmt.Errorf("catch up with the cluster before a read: %w", err)
			}
			s.caughtUp.Store(true)
			return nil
		}
		var resp ReadIndexResponse
		err := s.forwardToLeader(ctx, "Status.ReadIndex", &ReadIndexRequest{}, &resp)
		if errors.Is(err, nomadrpc.ErrNotLeader) && s.IsLeader() && ctx.Err() == nil {
			continue // elected meanwhile
		}
		if err != nil {
			return fmt.Errorf("catch up with the leader before a read: %w", err)
		}
		if err := s.waitForApplied(ctx, resp.Index); err != nil {
			return err
		}
		s.caughtUp.Store(true)
		return nil
	}
}

// waitForApplied waits until this server's state has applied index,
// watching the state rather than polling it.
func (s *Server) waitForApplied(ctx context.Context, index uint64) error {
	if index == 0 {
		return nil
	}
	_, applied, err := s.blockingRead(ctx, index-1, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		applied, err := st.AppliedIndex(ws)
		return nil, applied, err
	})
	if err != nil {
		return fmt.Errorf("wait for index %d before a read: %w", index, err)
	}
	if applied < index {
		return fmt.Errorf("this server has applied the cluster's state up to index %d, the leader's is at %d: "+
			"not caught up in time (a stale read answers with this server's state): %w", applied, index, context.Cause(ctx))
	}
	return nil
}

// syncLoop catches up once, as soon as a leader is known, so that a server
// that started behind its cluster reports a known leader only once its
// state has caught up, also to stale reads, which never catch up
// themselves.
func (s *Server) syncLoop(ctx context.Context) {
	for !s.caughtUp.Load() {
		if err := s.WaitForLeader(ctx); err != nil {
			return
		}
		if err := s.catchUpForRead(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.logger.Debug("catching up with the leader", "error", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(forwardRetryWait):
			}
		}
	}
}
