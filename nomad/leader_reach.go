package nomad

import (
	"context"
	"time"

	"github.com/hashicorp/go-metrics"
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

// LeaderUnreachable returns why this server cannot open connections to
// the leader raft names, or nil when it can (or leads, or knows no
// leader). The agent's health endpoint reports it.
func (s *Server) LeaderUnreachable() error {
	leader := s.Leader()
	if leader == s.advertise {
		return nil
	}
	return s.leaderReach.Trouble(leader)
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
