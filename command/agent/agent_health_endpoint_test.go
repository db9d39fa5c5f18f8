package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/nomad"
)

func decodeHealth(t *testing.T, resp response) agentHealth {
	t.Helper()
	var h agentHealth
	must.NoError(t, json.Unmarshal(resp.body, &h), must.Sprint(resp.String()))
	return h
}

func TestAgentHealth_ServerWithLeader(t *testing.T) {
	a := testAgent(t)
	resp := get(t, a, "/v1/agent/health", nil)
	h := decodeHealth(t, resp)
	must.Eq(t, &componentHealth{Ok: true, Message: "ok"}, h.Server)
	must.Nil(t, h.Client, must.Sprint("the agent runs no client"))
}

func TestAgentHealth_ServerWithoutLeader(t *testing.T) {
	// A server that waits for a second one never has a leader.
	cfg := config.DevConfig()
	cfg.Ports = config.Ports{HTTP: 0, RPC: 0}
	cfg.Client.Enabled = false
	cfg.Server.BootstrapExpect = 2
	cfg.Server.EncryptKey = testEncryptKey
	cfg.DevMode = false
	cfg.DataDir = t.TempDir()
	a, err := NewAgent(cfg, hclog.New(&hclog.LoggerOptions{Level: hclog.Error, Output: testLogWriter{t}}))
	must.NoError(t, err)
	t.Cleanup(func() { must.NoError(t, a.Shutdown()) })

	resp := do(t, a, http.MethodGet, "/v1/agent/health", nil)
	must.Eq(t, http.StatusInternalServerError, resp.code)
	must.Eq(t, &componentHealth{Message: "no known leader"}, decodeHealth(t, resp).Server)
}

func TestAgentHealth_Client(t *testing.T) {
	a := testClientAgent(t)
	h := decodeHealth(t, get(t, a, "/v1/agent/health", nil))
	must.Eq(t, &componentHealth{Ok: true, Message: "ok"}, h.Client)
	must.Eq(t, &componentHealth{Ok: true, Message: "ok"}, h.Server)
}

// reach is a server's view of its leader, for serverHealth.
type reach struct {
	known       bool
	unreachable error
}

func (r reach) KnownLeader() bool        { return r.known }
func (r reach) LeaderUnreachable() error { return r.unreachable }

func TestServerHealth_SaysWhyTheLeaderCannotBeReached(t *testing.T) {
	must.Eq(t, &componentHealth{Ok: true, Message: "ok"}, serverHealth(reach{known: true}))
	must.Eq(t, &componentHealth{Message: "no known leader"}, serverHealth(reach{}))
	trouble := fmt.Errorf("cannot open a connection to the leader at 10.0.0.21:4647: %w", nomad.ErrLeaderUnreachable)
	must.Eq(t, &componentHealth{Message: trouble.Error()}, serverHealth(reach{known: true, unreachable: trouble}),
		must.Sprint("raft knows a leader, but this server takes no write: unhealthy, and why"))
}
