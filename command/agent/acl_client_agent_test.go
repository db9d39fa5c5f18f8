package agent

import (
	"net/http"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// TestACL_clientAgentChecksTokensThroughTheServers: an agent that runs no
// server checks its /v1/client requests itself, asking the servers what a
// token may do, both when called directly and when a server forwards the
// request to it; a deleted token stops working there once its cache
// entry is older than acl.token_ttl.
func TestACL_clientAgentChecksTokensThroughTheServers(t *testing.T) {
	srv, mgmt := aclAgent(t, func(cfg *config.Config) { cfg.Server.EncryptKey = testEncryptKey })
	c := testClientAgent(t, func(cfg *config.Config) {
		cfg.NodeName = "acl-client"
		cfg.Server.Enabled = false
		cfg.ACL.Enabled = true
		cfg.ACL.TokenTTL = 200 * time.Millisecond
		cfg.Client.RegistrationSecret = testRegistrationSecret
		cfg.Client.Servers = []string{srv.Server().RPCAddr().String()}
	})
	job := rawExecJob("acl-logs", map[string]string{"out": "echo logged"})
	alloc := placeAlloc(t, srv.Server(), job, c.Client().NodeID())
	waitAlloc(t, srv.Server(), alloc.ID, "complete", clientStatusIs(structs.AllocClientStatusComplete))

	logs := "/v1/client/fs/logs/" + alloc.ID + "?task=out&type=stdout&plain=true"
	reader := tokenWith(t, srv, mgmt, "reader", `namespace "default" { policy = "read" }`)
	logger := tokenWith(t, srv, mgmt, "logger", `namespace "default" { capabilities = ["read-logs"] }`)
	for _, a := range []*Agent{c, srv} {
		must.Eq(t, http.StatusForbidden, doAs(t, a, "", http.MethodGet, logs, nil).code)
		must.Eq(t, http.StatusForbidden, doAs(t, a, reader.SecretID, http.MethodGet, logs, nil).code)
		resp := doAs(t, a, logger.SecretID, http.MethodGet, logs, nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.Eq(t, "logged\n", string(resp.body))
	}
	resp := doAs(t, c, structs.GenerateUUID(), http.MethodGet, logs, nil)
	must.Eq(t, http.StatusForbidden, resp.code)
	must.StrContains(t, resp.String(), "ACL token not found")

	must.Eq(t, http.StatusOK, doAs(t, srv, mgmt, http.MethodDelete, "/v1/acl/token/"+logger.AccessorID, nil).code)
	waitfor.True(t, "the client agent to drop the deleted token", func() bool {
		return doAs(t, c, logger.SecretID, http.MethodGet, logs, nil).code == http.StatusForbidden
	})
}
