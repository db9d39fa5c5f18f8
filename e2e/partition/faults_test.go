package partition

import (
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
)

// fault is a failure the cluster goes through while callers call it.
type fault struct {
	name string
	// slug names the fault's jobs.
	slug string
	// hitsLeader says that the fault hits the leader alone: the other
	// servers are whole, can reach each other and the client, and elect
	// a new leader. A fault that does not hit the leader leaves every
	// server whole.
	hitsLeader bool
	// inject starts the fault on the cluster, whose leader is leader, and
	// returns what ends it.
	inject func(t *testing.T, c *cluster, leader *member) (heal func())
}

// whole are the servers f leaves whole.
func (f fault) whole(c *cluster, leader *member) []*member {
	var out []*member
	for _, s := range c.servers {
		if !f.hitsLeader || s != leader {
			out = append(out, s)
		}
	}
	return out
}

var faults = []fault{
	{"leader cut off both ways", "cut-both", true, func(t *testing.T, c *cluster, leader *member) func() {
		for _, o := range c.others(leader) {
			c.net.Cut(leader.host, o.host)
			c.net.Cut(o.host, leader.host)
		}
		return c.net.HealAll
	}},
	{"leader cannot send (one way)", "cut-out", true, func(t *testing.T, c *cluster, leader *member) func() {
		for _, o := range c.others(leader) {
			c.net.Cut(leader.host, o.host)
		}
		return c.net.HealAll
	}},
	{"leader cannot receive (one way)", "cut-in", true, func(t *testing.T, c *cluster, leader *member) func() {
		for _, o := range c.others(leader) {
			c.net.Cut(o.host, leader.host)
		}
		return c.net.HealAll
	}},
	{"leader frozen (SIGSTOP)", "frozen", true, func(t *testing.T, c *cluster, leader *member) func() {
		return freeze(t, leader)
	}},
	{"client cut off from the servers both ways", "client-cut", false, func(t *testing.T, c *cluster, _ *member) func() {
		for _, s := range c.servers {
			c.net.Cut(c.client.host, s.host)
			c.net.Cut(s.host, c.client.host)
		}
		return c.net.HealAll
	}},
}

// freeze stops m's agent with SIGSTOP until the returned function sends
// SIGCONT; the test's end sends it too, so that the agent can be stopped.
func freeze(t *testing.T, m *member) (thaw func()) {
	t.Helper()
	must.NoError(t, syscall.Kill(m.agent.Pid(), syscall.SIGSTOP))
	thaw = func() { _ = syscall.Kill(m.agent.Pid(), syscall.SIGCONT) }
	t.Cleanup(thaw)
	return thaw
}
