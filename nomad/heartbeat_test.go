package nomad

import (
	"context"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// heartbeatLoop heartbeats a node every interval until the test ends or
// the returned function is called.
func heartbeatLoop(t *testing.T, s *Server, nodeID string, interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	go func() {
		defer close(done)
		for {
			if _, err := s.NodeHeartbeat(ctx, nodeID); err != nil && ctx.Err() == nil {
				t.Logf("heartbeat of %s: %v", nodeID, err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(interval):
			}
		}
	}()
	return stop
}

func TestHeartbeat_MissedHeartbeatLosesAllocsAndReplacesThem(t *testing.T) {
	cfg := testConfig(t, "dev")
	cfg.MinHeartbeatTTL = 500 * time.Millisecond
	cfg.HeartbeatGrace = 500 * time.Millisecond
	s := startServer(t, cfg)
	waitForLeader(t, s)
	ctx := testCtx(t)

	first := fakeNode("first")
	_, err := s.NodeRegister(ctx, first)
	must.NoError(t, err)
	silence := heartbeatLoop(t, s, first.ID, 100*time.Millisecond)
	resp := mustRegister(t, s, testJob("work"))
	waitfor.True(t, "the evaluation", func() bool { return evalStatus(t, s, resp.EvalID) == structs.EvalStatusComplete })
	allocs := liveAllocs(t, s, "work")
	must.Len(t, 1, allocs)
	lostID := allocs[0].ID

	// A second node that keeps heartbeating; the first falls silent.
	second := fakeNode("second")
	reg, err := s.NodeRegister(ctx, second)
	must.NoError(t, err)
	must.Between(t, cfg.MinHeartbeatTTL, reg.HeartbeatTTL, 2*cfg.MinHeartbeatTTL)
	heartbeatLoop(t, s, second.ID, 100*time.Millisecond)
	silence()

	waitfor.True(t, "the first node to be down", func() bool {
		n, err := s.State().NodeByID(nil, first.ID)
		return err == nil && n.Status == structs.NodeStatusDown
	})
	waitfor.True(t, "the allocation to be lost and replaced", func() bool {
		lost, err := s.State().AllocByID(nil, lostID)
		must.NoError(t, err)
		live := liveAllocs(t, s, "work")
		return lost.ClientStatus == structs.AllocClientStatusLost && len(live) == 1 && live[0].NodeID == second.ID
	})
	replacement := liveAllocs(t, s, "work")[0]
	must.Eq(t, lostID, replacement.PreviousAllocation)
	must.Eq(t, "work.group[0]", replacement.Name)
}
