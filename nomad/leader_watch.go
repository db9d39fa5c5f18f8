package nomad

import (
	"context"
	"sync"

	"github.com/hashicorp/raft"
)

// leaderWatch tells waiters that the leader this server knows has
// changed: raft reports each change to an observer (on followers too:
// the leader is lost, a new one is heard from), and each report closes
// the channel handed out before it.
type leaderWatch struct {
	mu sync.Mutex
	ch chan struct{}
}

func newLeaderWatch() *leaderWatch { return &leaderWatch{ch: make(chan struct{})} }

// next returns a channel that is closed at the next change. Take it
// before reading the leader, so that a change in between is not missed.
func (w *leaderWatch) next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ch
}

// changed wakes the waiters.
func (w *leaderWatch) changed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.ch)
	w.ch = make(chan struct{})
}

// watchLeader relays raft's leader observations to s.leaderWatch until
// ctx ends.
func (s *Server) watchLeader(ctx context.Context) {
	// A full buffer drops observations, but one delivered is enough to
	// wake the waiters, who then read the current leader themselves.
	obs := make(chan raft.Observation, 8)
	observer := raft.NewObserver(obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	s.raft.RegisterObserver(observer)
	defer s.raft.DeregisterObserver(observer)
	for {
		select {
		case <-ctx.Done():
			return
		case <-obs:
			s.leaderWatch.changed()
		}
	}
}

// cancelOnLeaderChange cancels ctx with errLeaderChanged once raft names
// a leader other than leader, or none; it returns when ctx ends.
func (s *Server) cancelOnLeaderChange(ctx context.Context, cancel context.CancelCauseFunc, leader string) {
	for {
		changed := s.leaderWatch.next()
		if s.Leader() != leader {
			cancel(errLeaderChanged)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}
