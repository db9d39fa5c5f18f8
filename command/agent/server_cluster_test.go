package agent

import (
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
)

// serverCluster is server agents on 127.0.0.1, each with a data dir of
// its own, that form one cluster: every one joins the first.
type serverCluster struct {
	t       *testing.T
	agents  []*Agent
	configs []*config.Config
}

// startServerCluster starts n server agents (no clients) that expect one
// another, applying mutate to each one's configuration, and waits until
// they have elected a leader that every one of them knows.
func startServerCluster(t *testing.T, n int, mutate ...func(*config.Config)) *serverCluster {
	t.Helper()
	c := &serverCluster{t: t}
	var join []string
	for i := range n {
		cfg := config.DevConfig()
		cfg.DevMode = false
		cfg.DataDir = t.TempDir()
		cfg.Ports = config.Ports{HTTP: 0, RPC: 0}
		cfg.NodeName = fmt.Sprintf("server-%d", i)
		cfg.Client.Enabled = false
		cfg.Server.BootstrapExpect = n
		cfg.Server.EncryptKey = testEncryptKey
		cfg.Server.RetryJoin = join
		cfg.Server.RetryInterval = 100 * time.Millisecond
		cfg.Telemetry.CollectionInterval = 100 * time.Millisecond
		for _, m := range mutate {
			m(cfg)
		}
		a := c.start(cfg)
		// A restart must come back on the same ports: the raft
		// configuration names the RPC address, and tests the HTTP one.
		cfg.Ports = config.Ports{HTTP: port(t, a.HTTPAddr()), RPC: port(t, a.Server().RPCAddr().String())}
		c.agents = append(c.agents, a)
		c.configs = append(c.configs, cfg)
		if i == 0 {
			join = []string{a.Server().RPCAdvertise()}
		}
	}
	c.leader()
	return c
}

func (c *serverCluster) start(cfg *config.Config) *Agent {
	c.t.Helper()
	logger := hclog.New(&hclog.LoggerOptions{Name: cfg.NodeName, Level: hclog.Warn, Output: testLogWriter{c.t}})
	a, err := NewAgent(cfg, logger)
	must.NoError(c.t, err)
	c.t.Cleanup(func() { must.NoError(c.t, a.Shutdown()) })
	return a
}

// leader waits until exactly one agent leads and every other one knows
// it, with its HTTP address, and returns it.
func (c *serverCluster) leader() *Agent {
	c.t.Helper()
	var leader *Agent
	waitfor.True(c.t, "one leader that every server knows", func() bool {
		leader = nil
		for _, a := range c.agents {
			if a.Server().IsLeader() {
				if leader != nil {
					return false
				}
				leader = a
			}
		}
		if leader == nil {
			return false
		}
		for _, a := range c.agents {
			if a != leader && a.Server().LeaderHTTPAddr() != leader.HTTPAddr() {
				return false
			}
		}
		return true
	})
	return leader
}

// followers returns the agents that do not lead.
func (c *serverCluster) followers() []*Agent {
	var out []*Agent
	for _, a := range c.agents {
		if !a.Server().IsLeader() {
			out = append(out, a)
		}
	}
	return out
}

// restart stops agent i and starts it again on its data dir and ports.
func (c *serverCluster) restart(i int) *Agent {
	c.t.Helper()
	must.NoError(c.t, c.agents[i].Shutdown())
	cfg := *c.configs[i]
	c.agents[i] = c.start(&cfg)
	return c.agents[i]
}

func port(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	must.NoError(t, err)
	n, err := strconv.Atoi(p)
	must.NoError(t, err)
	return n
}
