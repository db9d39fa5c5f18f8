package agent

import (
	"net/http"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/structs"
)

// TestCompat_OfficialClientHostStats reads a node's host stats with
// Nomad's Go client, as `nomad node status -stats` does: from the agent
// that runs the node, and from a server, which forwards to that agent.
func TestCompat_OfficialClientHostStats(t *testing.T) {
	srv := testAgent(t, func(cfg *config.Config) { cfg.Server.EncryptKey = testEncryptKey })
	c := testClientAgent(t, func(cfg *config.Config) {
		cfg.NodeName = "stats-client"
		cfg.Server.Enabled = false
		cfg.Client.RegistrationSecret = testRegistrationSecret
		cfg.Client.Servers = []string{srv.Server().RPCAddr().String()}
	})
	nodeID := c.Client().NodeID()

	for name, addr := range map[string]string{"the node's agent": c.HTTPAddr(), "a server": srv.HTTPAddr()} {
		t.Run(name, func(t *testing.T) {
			api, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + addr})
			must.NoError(t, err)
			stats, err := api.Nodes().Stats(nodeID, nil)
			must.NoError(t, err)
			must.Positive(t, stats.Memory.Total)
			must.Positive(t, stats.Memory.Used)
			must.SliceNotEmpty(t, stats.CPU)
			must.Eq(t, "cpu0", stats.CPU[0].CPU)
			must.Positive(t, stats.Uptime)
			must.NotNil(t, stats.AllocDirStats)
			must.Positive(t, stats.AllocDirStats.Size)
		})
	}

	// The node's own agent serves it without node_id.
	var own map[string]any
	get(t, c, "/v1/client/stats", &own)
	must.MapContainsKey(t, own, "Timestamp")

	resp := do(t, srv, http.MethodGet, "/v1/client/stats?node_id="+structs.GenerateUUID(), nil)
	must.Eq(t, http.StatusNotFound, resp.code, must.Sprint(resp))
	resp = do(t, srv, http.MethodGet, "/v1/client/stats", nil)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, string(resp.body), "runs no client")
}
