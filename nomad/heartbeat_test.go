package nomad

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestScaledTTL(t *testing.T) {
	cases := []struct {
		nodes int
		want  time.Duration
	}{
		{0, 10 * time.Second},
		{100, 10 * time.Second},
		{500, 10 * time.Second},
		{1000, 20 * time.Second},
		{5000, 100 * time.Second},
	}
	for _, c := range cases {
		must.Eq(t, c.want, scaledTTL(10*time.Second, 50, c.nodes), must.Sprintf("%d nodes", c.nodes))
	}
	must.Eq(t, time.Second, scaledTTL(time.Second, 0, 1e6), must.Sprint("no rate: the floor"))
}

// expiries records the nodes a heartbeats tracker expired.
type expiries struct {
	mu    sync.Mutex
	nodes []string
}

func (e *expiries) expire(_ context.Context, id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nodes = append(e.nodes, id)
}

func (e *expiries) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.nodes...)
}

func TestHeartbeats_ExpireUnlessReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var exp expiries
		cfg := heartbeatConfig{minTTL: 10 * time.Second, maxPerSecond: 50, grace: 5 * time.Second, failoverTTL: time.Minute}
		h := newHeartbeats(cfg, hclog.NewNullLogger(), exp.expire)
		h.enable(context.Background())
		defer h.disable()

		ttl := h.reset("alive")
		must.Between(t, 10*time.Second, ttl, 12500*time.Millisecond)
		h.reset("silent")
		must.Eq(t, 2, h.active())

		// "alive" heartbeats within its TTL; "silent" does not.
		for range 4 {
			time.Sleep(ttl - time.Second)
			h.reset("alive")
		}
		synctest.Wait()
		must.Eq(t, []string{"silent"}, exp.list())
		must.Eq(t, 1, h.active())

		h.clear("alive")
		time.Sleep(time.Minute)
		synctest.Wait()
		must.Eq(t, []string{"silent"}, exp.list(), must.Sprint("a cleared node does not expire"))
	})
}

func TestHeartbeats_FailoverTTLAndDisable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var exp expiries
		cfg := heartbeatConfig{minTTL: time.Second, maxPerSecond: 50, grace: time.Second, failoverTTL: time.Minute}
		h := newHeartbeats(cfg, hclog.NewNullLogger(), exp.expire)

		// A follower arms nothing, but still tells clients a TTL.
		must.Positive(t, h.reset("n"))
		must.Eq(t, 0, h.active())

		h.enable(context.Background())
		h.initialize([]*structs.Node{
			{ID: "up", Status: structs.NodeStatusReady},
			{ID: "init", Status: structs.NodeStatusInit},
			{ID: "down", Status: structs.NodeStatusDown},
		})
		must.Eq(t, 2, h.active())
		time.Sleep(59 * time.Second)
		synctest.Wait()
		must.Len(t, 0, exp.list(), must.Sprint("a new leader gives clients the failover TTL"))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		must.SliceContainsAll(t, []string{"up", "init"}, exp.list())

		h.reset("late")
		h.disable()
		time.Sleep(time.Minute)
		synctest.Wait()
		must.Len(t, 2, exp.list(), must.Sprint("losing leadership stops the timers"))
	})
}

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
