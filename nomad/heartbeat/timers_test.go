package heartbeat

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

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

func (e *expiries) List() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.nodes...)
}

func TestHeartbeats_ExpireUnlessReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var exp expiries
		cfg := Config{MinTTL: 10 * time.Second, MaxPerSecond: 50, Grace: 5 * time.Second, FailoverTTL: time.Minute}
		h := NewTimers(cfg, hclog.NewNullLogger(), exp.expire)
		h.Enable(context.Background())
		defer h.Disable()

		ttl := h.Reset("alive")
		must.Between(t, 10*time.Second, ttl, 12500*time.Millisecond)
		h.Reset("silent")
		must.Eq(t, 2, h.Active())

		// "alive" heartbeats within its TTL; "silent" does not.
		for range 4 {
			time.Sleep(ttl - time.Second)
			h.Reset("alive")
		}
		synctest.Wait()
		must.Eq(t, []string{"silent"}, exp.List())
		must.Eq(t, 1, h.Active())

		h.Clear("alive")
		time.Sleep(time.Minute)
		synctest.Wait()
		must.Eq(t, []string{"silent"}, exp.List(), must.Sprint("a cleared node does not expire"))
	})
}

func TestHeartbeats_FailoverTTLAndDisable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var exp expiries
		cfg := Config{MinTTL: time.Second, MaxPerSecond: 50, Grace: time.Second, FailoverTTL: time.Minute}
		h := NewTimers(cfg, hclog.NewNullLogger(), exp.expire)

		// A follower arms nothing, but still tells clients a TTL.
		must.Positive(t, h.Reset("n"))
		must.Eq(t, 0, h.Active())

		h.Enable(context.Background())
		h.Initialize([]*structs.Node{
			{ID: "up", Status: structs.NodeStatusReady},
			{ID: "init", Status: structs.NodeStatusInit},
			{ID: "down", Status: structs.NodeStatusDown},
		})
		must.Eq(t, 2, h.Active())
		time.Sleep(59 * time.Second)
		synctest.Wait()
		must.Len(t, 0, exp.List(), must.Sprint("a new leader gives clients the failover TTL"))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		must.SliceContainsAll(t, []string{"up", "init"}, exp.List())

		h.Reset("late")
		h.Disable()
		time.Sleep(time.Minute)
		synctest.Wait()
		must.Len(t, 2, exp.List(), must.Sprint("losing leadership stops the timers"))
	})
}

func TestHeartbeatRelay_KeepsWhatTheLeaderHasNotGot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewRelay(20 * time.Second)
		first := r.Took("n1")
		time.Sleep(time.Second)
		r.Took("n2")
		time.Sleep(time.Second)
		r.Took("n1") // a second heartbeat while the first is in flight
		r.Delivered("n1", first)
		must.Eq(t, []Relayed{{NodeID: "n1", Age: 0}, {NodeID: "n2", Age: time.Second}}, r.List(),
			must.Sprint("the later heartbeat of n1 is still pending"))

		latest := r.Took("n2")
		r.Delivered("n2", latest)
		time.Sleep(21 * time.Second)
		must.Len(t, 0, r.List(), must.Sprint("heartbeats older than any TTL and grace are dropped"))
		must.Eq(t, 0, len(r.pending))
	})
}

func TestHeartbeats_RelayedRestartsAWatchedTimerWithoutShorteningIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var exp expiries
		cfg := Config{MinTTL: 10 * time.Second, MaxPerSecond: 50, Grace: 10 * time.Second, FailoverTTL: time.Minute}
		h := NewTimers(cfg, hclog.NewNullLogger(), exp.expire)
		must.False(t, h.Relayed("n", 0), must.Sprint("a follower watches nothing"))
		h.Enable(context.Background())
		defer h.Disable()

		ttl := h.Reset("n")
		time.Sleep(15 * time.Second)
		// Taken by a follower 2s ago: n's timer now ends 18s from now.
		must.True(t, h.Relayed("n", 2*time.Second))
		// An older one would end it sooner: ignored.
		must.False(t, h.Relayed("n", 17*time.Second))
		must.False(t, h.Relayed("unknown", 0), must.Sprint("only a watched node's timer"))

		time.Sleep(18*time.Second - time.Millisecond)
		synctest.Wait()
		must.Len(t, 0, exp.List(), must.Sprintf("expired before the relayed heartbeat's TTL and grace (the direct one's, %s and grace, ended long ago)", ttl))
		time.Sleep(time.Millisecond)
		synctest.Wait()
		must.Eq(t, []string{"n"}, exp.List())
		must.False(t, h.Relayed("n", 0), must.Sprint("a node marked down comes back only through the leader"))
	})
}
