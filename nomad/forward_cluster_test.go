package nomad

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// steadyRaft gives raft timeouts four times the tests' usual, so that a
// loaded machine does not elect a new leader of its own in the middle of
// a test that moves the leadership itself, or needs it to stay put.
func steadyRaft(cfg *Config) {
	cfg.RaftConfig.HeartbeatTimeout = 2 * time.Second
	cfg.RaftConfig.ElectionTimeout = 2 * time.Second
	cfg.RaftConfig.LeaderLeaseTimeout = time.Second
}

// freezeLeader makes the leader stop reading what f sends it, as a
// stopped process does (SIGSTOP): f's calls are delivered nowhere and
// never answered.
func freezeLeader(t *testing.T, f, leader *Server) *holdProxy {
	t.Helper()
	proxy := startHoldProxy(t, leader.RPCAdvertise())
	poolThrough(t, f, leader.RPCAdvertise(), proxy)
	proxy.hold()
	return proxy
}

// replaceLeader has raft elect a leader other than old, as the other
// servers do when old stops answering, and returns it.
func (c *testCluster) replaceLeader(old *Server) *Server {
	c.t.Helper()
	var leader *Server
	waitfor.True(c.t, "a leader other than "+old.config.NodeName, func() bool {
		if old.IsLeader() {
			// Also after a transfer: the old leader may step down for
			// want of a quorum it cannot reach while frozen, and win the
			// election that follows (its log is as long as any).
			_ = old.raft.LeadershipTransfer().Error()
			return false
		}
		for _, s := range c.servers {
			if s != old && s.IsLeader() {
				leader = s
				return true
			}
		}
		return false
	})
	return leader
}

func TestForward_FollowsALeaderChangeWhileTheLeaderIsFrozen(t *testing.T) {
	c := startCluster(t, steadyRaft)
	leader := c.waitForOneLeader(c.servers)
	f := follower(c.servers)

	t.Run("a heartbeat goes to the new leader", func(t *testing.T) {
		node := testNode(structs.GenerateUUID())
		_, err := f.NodeRegister(testCtx(t), node)
		must.NoError(t, err)
		frozen := freezeLeader(t, f, leader)
		done := make(chan error, 1)
		go func() {
			_, err := f.NodeHeartbeat(testCtx(t), node.ID)
			done <- err
		}()
		frozen.waitHolding(t, "Node.Heartbeat")
		leader = c.replaceLeader(leader)

		// Without following the change, the call waits for the frozen
		// leader until the caller's deadline and fails.
		must.NoError(t, <-done)
	})

	t.Run("a register the frozen leader may have read may still apply", func(t *testing.T) {
		if f.IsLeader() {
			f = follower(c.servers)
		}
		frozen := freezeLeader(t, f, leader)
		done := make(chan error, 1)
		go func() {
			_, err := f.RegisterJob(testCtx(t), &JobRegisterRequest{Job: testJob("during-freeze")})
			done <- err
		}()
		frozen.waitHolding(t, "Job.Register")
		newLeader := c.replaceLeader(leader)

		// Sent again to the new leader, the register could run twice,
		// around another caller's stop: the caller is told at once that
		// it may still apply, rather than at its deadline.
		err := <-done
		must.ErrorIs(t, err, ErrMayStillApply)
		must.StrContains(t, err.Error(), "another leader")
		job, err := newLeader.State().JobByID(nil, structs.DefaultNamespace, "during-freeze")
		must.NoError(t, err)
		must.Nil(t, job, must.Sprint("the register was sent again to the new leader"))
		leader = newLeader
	})

	t.Run("another write says it may still apply", func(t *testing.T) {
		if f.IsLeader() {
			f = follower(c.servers)
		}
		frozen := freezeLeader(t, f, leader)
		alloc := testAlloc(testJob("during-freeze"), "node-1")
		done := make(chan error, 1)
		go func() {
			_, err := f.Apply(testCtx(t), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
			done <- err
		}()
		frozen.waitHolding(t, "Raft.Apply")
		c.replaceLeader(leader)

		// A generic apply may not run twice: the frozen leader may have
		// read it, so the answer is that it may still apply, at once
		// rather than at the deadline.
		err := <-done
		must.ErrorIs(t, err, ErrMayStillApply)
		must.StrContains(t, err.Error(), "another leader")
		leader = c.otherLeader(leader)
	})

	t.Run("a write larger than the socket buffers is cut short", func(t *testing.T) {
		if f.IsLeader() {
			f = follower(c.servers)
		}
		frozen := freezeLeader(t, f, leader)
		// The frozen leader's buffers fill, and the write blocks in
		// them: only the connection's write deadline ends it.
		job := testJob("large")
		job.Meta = map[string]string{"filler": strings.Repeat("x", 16<<20)}
		alloc := testAlloc(job, "node-1")
		done := make(chan error, 1)
		go func() {
			_, err := f.Apply(testCtx(t), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
			done <- err
		}()
		frozen.waitHolding(t, "Raft.Apply")
		c.replaceLeader(leader)
		select {
		case err := <-done:
			must.ErrorIs(t, err, ErrMayStillApply)
		case <-time.After(2 * leaderWait):
			t.Fatalf("the write into the frozen leader's full buffers still blocks %s later", 2*leaderWait)
		}
	})
}

func TestForward_LeaderRefusesAWriteThatArrivesAfterItsDeadline(t *testing.T) {
	c := startCluster(t, steadyRaft)
	leader := c.waitForOneLeader(c.servers)
	f := follower(c.servers)
	refusals := countLogs(leader.config, "refused a forwarded write that arrived after its deadline")

	// A partition between f and the leader: what f sends waits in the
	// network.
	proxy := startHoldProxy(t, leader.RPCAdvertise())
	poolThrough(t, f, leader.RPCAdvertise(), proxy)
	proxy.hold()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := f.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("behind-partition")})
	proxy.waitHolding(t, "Job.Register")
	// Sent and never answered: the caller is told the write may still
	// apply, not that it failed.
	must.ErrorIs(t, err, ErrMayStillApply)

	// The partition heals; the write reaches the leader long after its
	// caller gave up, and the leader refuses it.
	proxy.deliver()
	applied := func() bool {
		job, err := leader.State().JobByID(nil, structs.DefaultNamespace, "behind-partition")
		must.NoError(t, err)
		return job != nil
	}
	waitfor.True(t, "the leader to refuse or apply the late write", func() bool { return refusals.n.Load() > 0 || applied() })
	must.False(t, applied(), must.Sprint("the leader applied a write whose caller had timed out"))
	must.True(t, leader.IsLeader(), must.Sprint("the leader changed; its refusal proves nothing"))
}

func TestRaftApply_RefusesAnExpiredWriteOnlyBeforeItsFirstEntry(t *testing.T) {
	s := startServer(t, testConfig(t, "solo"))
	waitForLeader(t, s)

	// Past its deadline before anything entered the log: refused.
	expired, cancel := context.WithCancel(withProposal(context.Background()))
	cancel()
	job := testJob("expired")
	_, err := s.raftApply(expired, logentry.MsgJobRegister, &logentry.JobRegister{Job: job, Eval: testEval(job.ID)})
	must.ErrorIs(t, err, ErrNotApplied)
	must.False(t, errors.Is(err, ErrMayStillApply))
	got, err := s.State().JobByID(nil, structs.DefaultNamespace, "expired")
	must.NoError(t, err)
	must.Nil(t, got)

	// A write whose first entry entered the log is finished whole, even
	// if its deadline passes before the next.
	ctx, cancel := context.WithCancel(withProposal(context.Background()))
	first := testJob("first")
	_, err = s.raftApply(ctx, logentry.MsgJobRegister, &logentry.JobRegister{Job: first, Eval: testEval(first.ID)})
	must.NoError(t, err)
	cancel()
	second := testJob("second")
	_, err = s.raftApply(ctx, logentry.MsgJobRegister, &logentry.JobRegister{Job: second, Eval: testEval(second.ID)})
	if err != nil {
		// Its result may not be awaited, but it is not refused.
		must.ErrorIs(t, err, ErrMayStillApply)
	}
	waitfor.True(t, "the second entry applied", func() bool {
		got, err := s.State().JobByID(nil, structs.DefaultNamespace, "second")
		return err == nil && got != nil
	})
}
