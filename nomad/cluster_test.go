package nomad

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/membership"
	"github.com/drover-io/drover/structs"
)

// testCluster is three servers on 127.0.0.1 that found each other through
// server_join: the second joins the first, the third the second, so the
// third learns of the first only through the second.
type testCluster struct {
	t       *testing.T
	servers []*Server
	configs []*Config
}

func startCluster(t *testing.T, mutate ...func(*Config)) *testCluster {
	c := &testCluster{t: t}
	var join []string
	for i := range 3 {
		cfg := testConfig(t, fmt.Sprintf("server%d", i))
		for _, m := range mutate {
			m(cfg)
		}
		cfg.DataDir = t.TempDir()
		cfg.DevMode = false
		cfg.BootstrapExpect = 3
		cfg.HTTPAddr = fmt.Sprintf("127.0.0.1:%d", 14646+i)
		cfg.ServerJoin = join
		for _, m := range mutate {
			m(cfg)
		}
		s := startServer(t, cfg)
		// Restarts must come back on the same address: the raft
		// configuration names it.
		cfg.RPCAddr = s.RPCAddr().(*net.TCPAddr)
		c.servers = append(c.servers, s)
		c.configs = append(c.configs, cfg)
		join = []string{s.RPCAdvertise()}
	}
	c.waitForOneLeader(c.servers)
	return c
}

// waitForOneLeader waits until exactly one of servers leads and all of them
// name it.
func (c *testCluster) waitForOneLeader(servers []*Server) *Server {
	c.t.Helper()
	var leader *Server
	waitfor.True(c.t, "one leader", func() bool {
		leader = nil
		for _, s := range servers {
			if s.IsLeader() {
				if leader != nil {
					return false
				}
				leader = s
			}
		}
		if leader == nil {
			return false
		}
		for _, s := range servers {
			if s.Leader() != leader.RPCAdvertise() {
				return false
			}
		}
		return true
	})
	return leader
}

// follower returns a server of servers that is not the leader.
func follower(servers []*Server) *Server {
	for _, s := range servers {
		if !s.IsLeader() {
			return s
		}
	}
	return nil
}

// waitForJob waits until every server in servers has the job.
func (c *testCluster) waitForJob(servers []*Server, id string) {
	c.t.Helper()
	for _, s := range servers {
		waitfor.True(c.t, fmt.Sprintf("job %q on %s", id, s.config.NodeName), func() bool {
			job, err := s.State().JobByID(nil, structs.DefaultNamespace, id)
			return err == nil && job != nil
		})
	}
}

// restart starts server i again on its data dir and address.
func (c *testCluster) restart(i int) *Server {
	c.t.Helper()
	cfg := *c.configs[i]
	cfg.Logger = testLogger(c.t, cfg.NodeName+"-restarted")
	s := startServer(c.t, &cfg)
	c.servers[i] = s
	return s
}

func TestCluster_FormsAndForwardsWrites(t *testing.T) {
	c := startCluster(t)

	for _, s := range c.servers {
		waitfor.True(t, "three peers", func() bool { return len(s.Peers()) == 3 })
	}
	ids := []string{c.servers[0].NodeID(), c.servers[1].NodeID(), c.servers[2].NodeID()}
	slices.Sort(ids)
	for _, s := range c.servers {
		waitfor.True(t, "every member alive", func() bool {
			members := s.Members()
			if len(members) != 3 {
				return false
			}
			for i, m := range members {
				if m.ID != ids[i] || m.Status != membership.StatusAlive || !m.Voter || m.HTTPAddr == "" {
					return false
				}
			}
			return true
		})
	}

	leader := c.waitForOneLeader(c.servers)
	f := follower(c.servers)
	must.NotNil(t, f)
	must.Eq(t, leader.config.HTTPAddr, f.LeaderHTTPAddr())
	must.Eq(t, 0, leader.LastContact())

	resp := mustRegister(t, f, testJob("forwarded"))
	must.NotEq(t, "", resp.EvalID)
	c.waitForJob(c.servers, "forwarded")

	// Errors keep their kind across the forwarding hop.
	_, err := f.AllocStop(testCtx(t), "missing")
	must.ErrorIs(t, err, ErrNotFound)
	changed := testJob("forwarded")
	changed.Meta = map[string]string{"v": "2"}
	_, err = f.RegisterJob(testCtx(t), &JobRegisterRequest{Job: changed, EnforceIndex: true, JobModifyIndex: 1})
	must.ErrorIs(t, err, ErrIndexConflict)
	invalid := testJob("invalid")
	invalid.Type = "nonsense"
	_, err = f.RegisterJob(testCtx(t), &JobRegisterRequest{Job: invalid})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.StrContains(t, err.Error(), "nonsense")
	// The server a register reaches checks the job, once, and lists
	// every problem; the leader takes what a server forwards as that
	// server checked it (here, within limits the leader does not have).
	var problems *structs.ValidationError
	must.True(t, errors.As(err, &problems), must.Sprint(err))
	leader.config.JobLimits.MaxCount = 1
	big := testJob("checked-where-it-arrived")
	big.TaskGroups[0].Count = 2
	mustRegister(t, f, big)
	big.ID = "checked-on-the-leader"
	_, err = leader.RegisterJob(testCtx(t), &JobRegisterRequest{Job: big})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.StrContains(t, err.Error(), "count")

	// The generic apply is forwarded too.
	alloc := testAlloc(testJob("forwarded"), "node-1")
	_, err = f.Apply(testCtx(t), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	for _, s := range c.servers {
		waitfor.True(t, "alloc everywhere", func() bool {
			a, err := s.State().AllocByID(nil, alloc.ID)
			return err == nil && a != nil
		})
	}
}

func TestCluster_SurvivesServerLoss(t *testing.T) {
	cases := []struct {
		name       string
		stopLeader bool
	}{
		{"follower stops", false},
		{"leader stops", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t)
			mustRegister(t, c.servers[0], testJob("before"))
			c.waitForJob(c.servers, "before")

			leader := c.waitForOneLeader(c.servers)
			stopped := slices.IndexFunc(c.servers, func(s *Server) bool { return s.IsLeader() == tc.stopLeader })
			must.NotEq(t, -1, stopped)
			must.Eq(t, tc.stopLeader, c.servers[stopped] == leader)
			must.NoError(t, c.servers[stopped].Shutdown())

			var rest []*Server
			for i, s := range c.servers {
				if i != stopped {
					rest = append(rest, s)
				}
			}
			// Writes go through either remaining server, waiting for a
			// new leader if the old one left.
			for i, s := range rest {
				mustRegister(t, s, testJob(fmt.Sprintf("during-%d", i)))
			}
			c.waitForOneLeader(rest)
			c.waitForJob(rest, "during-0")
			c.waitForJob(rest, "during-1")

			restarted := c.restart(stopped)
			c.waitForJob([]*Server{restarted}, "during-0")
			c.waitForJob([]*Server{restarted}, "during-1")
			c.waitForOneLeader(c.servers)

			mustRegister(t, restarted, testJob("after"))
			c.waitForJob(c.servers, "after")
			for _, s := range c.servers {
				waitfor.True(t, "three peers", func() bool { return len(s.Peers()) == 3 })
			}
		})
	}
}

func TestCluster_JoinExistingClusterAndShutdownLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()

	a, err := NewServer(testConfig(t, "first"))
	must.NoError(t, err)
	waitForLeader(t, a)
	mustRegister(t, a, testJob("early"))

	// A second server that expects a two-server cluster finds one with a
	// leader already and asks to be added to it.
	cfg := testConfig(t, "second")
	cfg.BootstrapExpect = 2
	cfg.ServerJoin = []string{a.RPCAdvertise()}
	b, err := NewServer(cfg)
	must.NoError(t, err)
	waitfor.True(t, "the second server to join", func() bool { return len(a.Peers()) == 2 && len(b.Peers()) == 2 })
	c := &testCluster{t: t}
	c.waitForOneLeader([]*Server{a, b})
	c.waitForJob([]*Server{b}, "early")

	// Raft and RPC connections both ways, and a forwarded write.
	f := follower([]*Server{a, b})
	mustRegister(t, f, testJob("late"))
	c.waitForJob([]*Server{a, b}, "late")

	must.NoError(t, b.Shutdown())
	must.NoError(t, a.Shutdown())
	must.NoError(t, a.Shutdown(), must.Sprint("Shutdown is idempotent"))

	// Every goroutine of both servers ends; a couple of the test
	// framework's own may come and go.
	waitfor.True(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before+2 })
}
