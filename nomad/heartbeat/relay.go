package heartbeat

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// A client's heartbeat that reaches a follower counts, even when the
// follower cannot forward it to the leader: a client must not lose its
// node, and its work be replaced, for the servers' own trouble. The
// follower keeps each heartbeat it took until the leader has it, and the
// leader collects the ones still pending when it probes the follower
// (the members exchange, every MemberProbeInterval, on a connection the
// leader opens), restarting those nodes' timers as a heartbeat does. The
// probe runs outside raft and outside the forwarding path, so a follower
// that cannot reach the leader still gets its clients' heartbeats through.
//
// Only the timer of a node the leader still watches is restarted: a node
// already marked down needs its client's heartbeat to reach the leader
// through raft to become ready again. The follower meanwhile answers the
// client that the leader is unreachable (ErrLeaderUnreachable), so that a
// client that knows other servers tries them.

// Relayed is a client heartbeat a follower took and has not
// forwarded to the leader.
type Relayed struct {
	NodeID string
	// Age is how long ago the follower took it.
	Age time.Duration
}

// Relay holds, on a follower, the heartbeats it took and has
// not yet got to the leader.
type Relay struct {
	// maxAge is how long a heartbeat is worth relaying: no node's timer
	// runs longer than its TTL and grace.
	maxAge time.Duration

	mu      sync.Mutex
	pending map[string]time.Time // node ID -> when its latest heartbeat was taken
}

func NewRelay(maxAge time.Duration) *Relay {
	return &Relay{maxAge: maxAge, pending: make(map[string]time.Time)}
}

// Took records a heartbeat of nodeID, before it is forwarded, and returns
// when it was taken.
func (r *Relay) Took(nodeID string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	r.pending[nodeID] = now
	return now
}

// Delivered forgets the heartbeat of nodeID taken at the leader took: the
// leader has it. A later one stays pending.
func (r *Relay) Delivered(nodeID string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.pending[nodeID]; ok && !t.After(at) {
		delete(r.pending, nodeID)
	}
}

// List returns the pending heartbeats, sorted by node ID, and forgets those
// too old to matter.
func (r *Relay) List() []Relayed {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Relayed
	for id, t := range r.pending {
		age := time.Since(t)
		if age > r.maxAge {
			delete(r.pending, id)
			continue
		}
		out = append(out, Relayed{NodeID: id, Age: age})
	}
	slices.SortFunc(out, func(a, b Relayed) int { return strings.Compare(a.NodeID, b.NodeID) })
	return out
}
