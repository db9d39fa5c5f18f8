package agent

import (
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
)

func TestNewAgent_InvalidConfig(t *testing.T) {
	cfg := config.DefaultConfig()
	_, err := NewAgent(cfg, nil)
	must.ErrorContains(t, err, "invalid agent configuration")
	must.ErrorContains(t, err, "at least one of server or client")
}

func TestNewAgent_PortInUseCleansUp(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port

	cfg := config.DevConfig()
	cfg.Client.Enabled = false
	cfg.Ports = config.Ports{HTTP: 0, RPC: port}
	_, err = NewAgent(cfg, hclog.NewNullLogger())
	must.ErrorContains(t, err, "start server")

	// The HTTP listener the failed agent had bound is released again, so
	// an agent on the same config (with a free RPC port) starts.
	cfg.Ports.RPC = 0
	a, err := NewAgent(cfg, hclog.NewNullLogger())
	must.NoError(t, err)
	must.NoError(t, a.Shutdown())
}

func TestAgent_HTTPAddrAndShutdown(t *testing.T) {
	a := testAgent(t)
	host, port, err := net.SplitHostPort(a.HTTPAddr())
	must.NoError(t, err)
	must.Eq(t, "127.0.0.1", host)
	p, err := strconv.Atoi(port)
	must.NoError(t, err)
	must.Positive(t, p)
	must.Nil(t, a.Client())
	must.NotNil(t, a.Server())

	get(t, a, "/v1/status/leader", nil)
	must.NoError(t, a.Shutdown())
	must.NoError(t, a.Shutdown(), must.Sprint("a second Shutdown is harmless"))

	_, err = http.Get("http://" + a.HTTPAddr() + "/v1/status/leader")
	must.Error(t, err, must.Sprint("the HTTP API is closed"))
}

// The server block's heartbeat settings reach the server.
func TestAgent_ServerHeartbeatSettings(t *testing.T) {
	a := testAgent(t, func(c *config.Config) {
		c.Server.MinHeartbeatTTL = 3 * time.Second
		c.Server.MaxHeartbeatsPerSecond = 7
		c.Server.HeartbeatGrace = 2 * time.Second
	})
	cfg := a.Server().Config()
	must.Eq(t, 3*time.Second, cfg.MinHeartbeatTTL)
	must.Eq(t, 7.0, cfg.MaxHeartbeatsPerSecond)
	must.Eq(t, 2*time.Second, cfg.HeartbeatGrace)
}
