package nomad

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-metrics"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// A follower can lose the ability to open connections to the leader
// while raft, on connections it opened long before, stays healthy: the
// leader ran out of file descriptors, a firewall rule drops new
// connections, a connection limit is reached. Raft then still names the
// leader and never elects another, but every write and client heartbeat
// the follower takes must be forwarded and cannot be. leaderReach notices
// it from the follower's attempts to connect (forwarded writes, and the
// member probe every MemberProbeInterval), so that the follower can say
// so (health endpoint, metric, log) and stop holding requests for a
// leader it cannot reach; see also package heartbeat.

// leaderReachInterval is how often a server checks and reports whether
// it can reach the leader.
const leaderReachInterval = time.Second

// leaderReach follows this server's attempts to connect to the leader.
type leaderReach struct {
	// after is how long attempts must have kept failing.
	after time.Duration

	mu       sync.Mutex
	leader   string    // the leader the record is about
	first    time.Time // first failed attempt since the last success
	last     time.Time // latest failed attempt
	failures int
	lastErr  error
}

// record notes the outcome of a call to leader: a dialError is a failure
// to connect; anything else, an answer or a broken call included, shows
// that a connection could be made. Callers leave out attempts their own
// context ended, which say nothing about the leader.
func (r *leaderReach) record(leader string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if leader != r.leader {
		r.leader, r.failures, r.lastErr = leader, 0, nil
	}
	var de *nomadrpc.DialError
	if !errors.As(err, &de) {
		r.failures, r.lastErr = 0, nil
		return
	}
	now := time.Now()
	if r.failures == 0 {
		r.first = now
	}
	r.failures++
	r.last, r.lastErr = now, err
}

// trouble returns why this server cannot reach leader, nil when it can or
// when its attempts have not failed for long enough to tell: at least two,
// r.after apart, with no success since.
func (r *leaderReach) trouble(leader string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if leader == "" || leader != r.leader || r.failures < 2 || r.last.Sub(r.first) < r.after {
		return nil
	}
	return &unreachableError{leader: leader, since: r.first, failures: r.failures, last: r.lastErr}
}

// failing reports whether the latest attempt to connect to leader failed.
func (r *leaderReach) failing(leader string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return leader != "" && leader == r.leader && r.failures > 0
}

// unreachableError says that, and why, the leader cannot be reached.
type unreachableError struct {
	leader   string
	since    time.Time
	failures int
	last     error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot open a connection to the leader at %s, which raft still follows: %d attempts failed over %s (since %s); last: %v",
		e.leader, e.failures, time.Since(e.since).Round(time.Second), e.since.UTC().Format(time.RFC3339), e.last)
}

func (e *unreachableError) Unwrap() error { return ErrLeaderUnreachable }

// LeaderUnreachable returns why this server cannot open connections to
// the leader raft names, or nil when it can (or leads, or knows no
// leader). The agent's health endpoint reports it.
func (s *Server) LeaderUnreachable() error {
	leader := s.Leader()
	if leader == s.advertise {
		return nil
	}
	return s.leaderReach.trouble(leader)
}

// monitorLeaderReach reports, every leaderReachInterval until ctx ends,
// whether this server can reach the leader.
func (s *Server) monitorLeaderReach(ctx context.Context) {
	ticker := time.NewTicker(leaderReachInterval)
	defer ticker.Stop()
	troubled := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		troubled = s.reportLeaderReach(metrics.Default(), troubled)
	}
}

// reportLeaderReach publishes whether this server can reach the leader
// (the gauge rpc.leader_unreachable, 1 when it cannot) and logs when that
// changed since the last report (troubled). It returns the new state.
func (s *Server) reportLeaderReach(m *metrics.Metrics, troubled bool) bool {
	err := s.LeaderUnreachable()
	switch {
	case err != nil && !troubled:
		s.logger.Error("leader unreachable: writes and client heartbeats sent to this server are refused until it can connect; "+
			"the leader collects the heartbeats when it probes this server", "error", err)
	case err == nil && troubled:
		s.logger.Info("leader reachable again, or replaced", "leader", s.Leader())
	}
	var v float32
	if err != nil {
		v = 1
	}
	m.SetGauge([]string{"rpc", "leader_unreachable"}, v)
	return err != nil
}
