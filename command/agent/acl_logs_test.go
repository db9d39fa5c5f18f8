package agent

import (
	"bytes"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/structs"
)

// lockedBuffer is a log sink tests read while the agent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestACL_secretsNeverLogged runs an agent that logs everything, at TRACE,
// through the bootstrap, token writes, requests with good, bad and
// expired secrets, denied writes and a snapshot, and finds none of the
// secrets in its log.
func TestACL_secretsNeverLogged(t *testing.T) {
	var logs lockedBuffer
	cfg := config.DevConfig()
	cfg.Ports = config.Ports{HTTP: 0, RPC: 0}
	cfg.Client.Enabled = false
	cfg.ACL.Enabled = true
	cfg.LogLevel = "TRACE"
	a, err := NewAgent(cfg, hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: &logs}))
	must.NoError(t, err)
	t.Cleanup(func() { _ = a.Shutdown() })
	must.NoError(t, a.Server().WaitForLeader(t.Context()))

	resp := doAs(t, a, "", http.MethodPut, "/v1/acl/bootstrap", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	mgmt := stringField(t, resp, "SecretID")
	dev := tokenWith(t, a, mgmt, "dev", `namespace "default" { policy = "read" }`)
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/acl/token", api.ACLToken{Policies: []string{"dev"}, ExpirationTTL: time.Millisecond})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	expiring := stringField(t, resp, "SecretID")
	chosen := structs.GenerateUUID()
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/acl/token/"+structs.GenerateUUID(), api.ACLToken{SecretID: chosen, Policies: []string{"dev"}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	unknown := structs.GenerateUUID()

	for _, secret := range []string{mgmt, dev.SecretID, expiring, chosen, unknown} {
		doAs(t, a, secret, http.MethodGet, "/v1/jobs", nil)
		doAs(t, a, secret, http.MethodPut, "/v1/jobs", map[string]any{"Job": batchJobJSON("log-" + secret[:8])})
		doAs(t, a, secret, http.MethodGet, "/v1/acl/token/self", nil)
		doAs(t, a, secret, http.MethodDelete, "/v1/job/nope", nil)
		doAs(t, a, secret, http.MethodGet, "/v1/operator/snapshot", nil)
	}
	must.StrContains(t, logs.String(), "request complete", must.Sprint("the test needs the request log"))
	for name, secret := range map[string]string{"management": mgmt, "client": dev.SecretID, "expiring": expiring, "chosen": chosen, "unknown": unknown} {
		must.StrNotContains(t, logs.String(), secret, must.Sprintf("the %s secret is in the log", name))
	}
}
