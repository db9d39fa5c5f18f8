package nomad

import (
	"github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/nomad/membership"
)

// takeRelayedHeartbeats restarts, on the leader, the timers of the nodes
// whose heartbeats a probed server relayed, and says so.
func (s *Server) takeRelayedHeartbeats(from membership.Member, resp *MembersResponse) {
	if len(resp.Heartbeats) == 0 || !s.IsLeader() {
		return
	}
	taken := 0
	for _, hb := range resp.Heartbeats {
		if s.heartbeats.Relayed(hb.NodeID, hb.Age) {
			taken++
		}
	}
	metrics.IncrCounter([]string{"heartbeat", "relayed"}, float32(taken))
	s.logger.Warn("a server relayed client heartbeats it could not forward to this leader",
		"server", from.Name, "address", from.RPCAddr, "heartbeats", len(resp.Heartbeats), "timers_restarted", taken,
		"reason", resp.LeaderTrouble)
}
