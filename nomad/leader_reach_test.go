package nomad

import (
	"errors"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/structs"
)

// cutFromLeader makes every new connection to leader from 127.0.0.1
// fail, as when the leader has reached its connection limit, while the
// connections open now (raft's among them) keep working; f loses its
// pooled RPC connection, so that it must open a new one.
func cutFromLeader(t *testing.T, leader, f *Server) (restore func()) {
	t.Helper()
	// One connection of the test's own keeps the leader's count for
	// 127.0.0.1 at the limit whatever else closes.
	hold := serverPool(t)
	_, err := hold.Client(testCtx(t), leader.RPCAdvertise())
	must.NoError(t, err)
	setLimit := func(n int) {
		leader.mux.SetMaxConnsPerIP(n)
	}
	setLimit(1)
	f.pool.Forget(leader.RPCAdvertise())
	return func() { setLimit(0) }
}

func TestCluster_FollowerThatCannotReachTheLeader(t *testing.T) {
	const (
		ttl   = 3 * time.Second
		grace = 3 * time.Second
	)
	c := startCluster(t, steadyRaft, func(cfg *Config) {
		cfg.LeaderUnreachableAfter = time.Second
		cfg.MinHeartbeatTTL = ttl
		cfg.HeartbeatGrace = grace
	})
	leader := c.waitForOneLeader(c.servers)
	f := follower(c.servers)
	ctx := testCtx(t)

	node := fakeNode("behind-follower")
	_, err := leader.NodeRegister(ctx, node)
	must.NoError(t, err)
	waitfor.True(t, "the follower to hold the node", func() bool { return f.knownNode(node.ID) })
	// The node's client heartbeats the follower only.
	heartbeatLoop(t, f, node.ID, 500*time.Millisecond)

	unreachableLogs := countLogs(f.config, "leader unreachable")
	relayLogs := countLogs(leader.config, "a server relayed client heartbeats")
	restore := cutFromLeader(t, leader, f)

	// The follower notices and says why: its health, its log, its metric.
	waitfor.True(t, "the follower to report the leader unreachable", func() bool { return f.LeaderUnreachable() != nil })
	trouble := f.LeaderUnreachable()
	must.ErrorIs(t, trouble, ErrLeaderUnreachable)
	must.StrContains(t, trouble.Error(), leader.RPCAdvertise())
	waitfor.True(t, "the follower to log it", func() bool { return unreachableLogs.n.Load() > 0 })
	m, sink := fixture.StatsSink(t)
	must.True(t, f.reportLeaderReach(m, true))
	v, ok := fixture.GaugeValue(sink, []string{"rpc", "leader_unreachable"}, map[string]string{})
	must.True(t, ok)
	must.Eq(t, 1, v)
	must.NoError(t, leader.LeaderUnreachable(), must.Sprint("the leader reaches itself"))

	// A write sent to it is refused at once, saying why, so that a client
	// that knows other servers tries them.
	_, err = f.NodeHeartbeat(ctx, node.ID)
	must.ErrorIs(t, err, ErrLeaderUnreachable)
	must.ErrorIs(t, err, ErrNotApplied)
	must.True(t, IsServerUnavailable(err))

	// The node's heartbeats reach the leader nevertheless: it is not
	// marked down however long the trouble lasts.
	waitfor.Always(t, "the node to stay ready", 2*(ttl+grace), func() bool {
		n, err := leader.State().NodeByID(nil, node.ID)
		return err == nil && n.Status == structs.NodeStatusReady
	})
	must.Positive(t, relayLogs.n.Load(), must.Sprint("the leader says whose heartbeats it took, and why"))

	// Once the follower can connect again, it forwards as before.
	restore()
	waitfor.True(t, "the follower to reach the leader again", func() bool { return f.LeaderUnreachable() == nil })
	waitfor.NoError(t, "a heartbeat through the follower", func() error {
		_, err := f.NodeHeartbeat(testCtx(t), node.ID)
		return err
	})
	must.False(t, f.reportLeaderReach(m, true))
	v, _ = fixture.GaugeValue(sink, []string{"rpc", "leader_unreachable"}, map[string]string{})
	must.Eq(t, 0, v)
	must.False(t, errors.Is(f.LeaderUnreachable(), ErrLeaderUnreachable))
}
