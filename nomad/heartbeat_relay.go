package nomad

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-metrics"
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

// RelayedHeartbeat is a client heartbeat a follower took and has not
// forwarded to the leader.
type RelayedHeartbeat struct {
	NodeID string
	// Age is how long ago the follower took it.
	Age time.Duration
}

// heartbeatRelay holds, on a follower, the heartbeats it took and has
// not yet got to the leader.
type heartbeatRelay struct {
	// maxAge is how long a heartbeat is worth relaying: no node's timer
	// runs longer than its TTL and grace.
	maxAge time.Duration

	mu      sync.Mutex
	pending map[string]time.Time // node ID -> when its latest heartbeat was taken
}

func newHeartbeatRelay(maxAge time.Duration) *heartbeatRelay {
	return &heartbeatRelay{maxAge: maxAge, pending: make(map[string]time.Time)}
}

// took records a heartbeat of nodeID, before it is forwarded, and returns
// when it was taken.
func (r *heartbeatRelay) took(nodeID string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	r.pending[nodeID] = now
	return now
}

// delivered forgets the heartbeat of nodeID taken at the leader took: the
// leader has it. A later one stays pending.
func (r *heartbeatRelay) delivered(nodeID string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.pending[nodeID]; ok && !t.After(at) {
		delete(r.pending, nodeID)
	}
}

// list returns the pending heartbeats, sorted by node ID, and forgets those
// too old to matter.
func (r *heartbeatRelay) list() []RelayedHeartbeat {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []RelayedHeartbeat
	for id, t := range r.pending {
		age := time.Since(t)
		if age > r.maxAge {
			delete(r.pending, id)
			continue
		}
		out = append(out, RelayedHeartbeat{NodeID: id, Age: age})
	}
	slices.SortFunc(out, func(a, b RelayedHeartbeat) int { return strings.Compare(a.NodeID, b.NodeID) })
	return out
}

// takeRelayedHeartbeats restarts, on the leader, the timers of the nodes
// whose heartbeats a probed server relayed, and says so.
func (s *Server) takeRelayedHeartbeats(from Member, resp *MembersResponse) {
	if len(resp.Heartbeats) == 0 || !s.IsLeader() {
		return
	}
	taken := 0
	for _, hb := range resp.Heartbeats {
		if s.heartbeats.relayed(hb.NodeID, hb.Age) {
			taken++
		}
	}
	metrics.IncrCounter([]string{"heartbeat", "relayed"}, float32(taken))
	s.logger.Warn("a server relayed client heartbeats it could not forward to this leader",
		"server", from.Name, "address", from.RPCAddr, "heartbeats", len(resp.Heartbeats), "timers_restarted", taken,
		"reason", resp.LeaderTrouble)
}
