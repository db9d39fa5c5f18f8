package nomad

import (
	"context"
	"time"

	"github.com/hashicorp/go-metrics"
)

// leaderStatsInterval is how often the leader publishes its gauges.
const leaderStatsInterval = time.Second

// emitLeaderStats publishes the broker's, the blocked evaluations', the
// plan queue's and the heartbeats' gauges under Nomad's names until ctx
// ends.
func (s *Server) emitLeaderStats(ctx context.Context) {
	ticker := time.NewTicker(leaderStatsInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		b := s.evalBroker.Stats()
		metrics.SetGauge([]string{"broker", "total_ready"}, float32(b.TotalReady))
		metrics.SetGauge([]string{"broker", "total_unacked"}, float32(b.TotalUnacked))
		metrics.SetGauge([]string{"broker", "total_pending"}, float32(b.TotalPending))
		metrics.SetGauge([]string{"broker", "total_waiting"}, float32(b.TotalWaiting))
		for queue, n := range b.ByScheduler {
			metrics.SetGauge([]string{"broker", queue + "_ready"}, float32(n))
		}
		metrics.SetGauge([]string{"blocked_evals", "total_blocked"}, float32(s.blockedEvals.Stats().TotalBlocked))
		metrics.SetGauge([]string{"plan", "queue_depth"}, float32(s.planQueue.Len()))
		metrics.SetGauge([]string{"heartbeat", "active"}, float32(s.heartbeats.Active()))
	}
}
