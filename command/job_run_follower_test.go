package command

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
	agentconfig "github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// testFollower starts three server agents in this process that form one
// cluster and returns one that does not lead, once it knows the leader.
func testFollower(t *testing.T) *agent.Agent {
	t.Helper()
	var agents []*agent.Agent
	var join []string
	for i := range 3 {
		cfg := agentconfig.DevConfig()
		cfg.DevMode = false
		cfg.DataDir = t.TempDir()
		cfg.Ports = agentconfig.Ports{HTTP: 0, RPC: 0}
		cfg.NodeName = fmt.Sprintf("cli-server-%d", i)
		cfg.Client.Enabled = false
		cfg.Server.BootstrapExpect = 3
		cfg.Server.EncryptKey = testEncryptKey
		cfg.Server.RetryJoin = join
		cfg.Server.RetryInterval = 100 * time.Millisecond
		cfg.Telemetry.CollectionInterval = 100 * time.Millisecond
		logger := hclog.New(&hclog.LoggerOptions{Name: cfg.NodeName, Level: hclog.Warn, Output: testLogWriter{t}})
		a, err := agent.NewAgent(cfg, logger)
		must.NoError(t, err)
		t.Cleanup(func() { must.NoError(t, a.Shutdown()) })
		agents = append(agents, a)
		if i == 0 {
			join = []string{a.Server().RPCAdvertise()}
		}
	}
	var follower *agent.Agent
	waitfor.True(t, "a follower that knows the leader", func() bool {
		for _, a := range agents {
			if !a.Server().IsLeader() && a.Server().LeaderHTTPAddr() != "" {
				follower = a
				return true
			}
		}
		return false
	})
	return follower
}

// TestJobRun_throughAFollower runs jobs with `job run -address <follower>`,
// monitor included, again and again: each run finds its evaluation on the
// follower and follows it to the end, however far the follower trails the
// leader.
func TestJobRun_throughAFollower(t *testing.T) {
	f := testFollower(t)
	registerTestNode(t, f, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	addr := "http://" + f.HTTPAddr()
	for i := range 15 {
		id := fmt.Sprintf("follower-run-%02d", i)
		code, out, errOut := runCLIWithin(t, "", "job", "run", "-address", addr, writeJob(t, id, ""))
		must.Eq(t, 0, code, must.Sprintf("run %d: %s%s", i, out, errOut))
		must.StrNotContains(t, errOut, "No evaluation with id")
		must.StrContains(t, out, `finished with status "complete"`)
	}
}
