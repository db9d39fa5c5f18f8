package agent

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/netguard"
)

// TestArtifact_LoopbackRefusedOutsideDevMode: a client with the default
// address policy (the one of every agent but a dev agent) refuses an
// artifact whose source is a service on its own loopback address. The
// service is never asked, nothing of it can be read back through the
// allocation's files, and the task event names the setting.
func TestArtifact_LoopbackRefusedOutsideDevMode(t *testing.T) {
	a := testClientAgent(t, func(c *config.Config) {
		c.Client.Artifact.Addresses = config.DefaultConfig().Client.Artifact.Addresses
	})
	must.Eq(t, netguard.DefaultPolicy(), a.config.Client.Artifact.Addresses)

	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.WriteString(w, "loopback-only secret\n")
	}))
	t.Cleanup(srv.Close)

	registerJob(t, a, artifactJob("inside", `cat "$NOMAD_ALLOC_DIR/data/secret.txt"`,
		map[string]any{"GetterSource": srv.URL + "/secret.txt", "RelativeDest": "../alloc/data"}))
	alloc, failed := failedDownload(t, a, "inside")
	must.Eq(t, "artifact 0 ("+srv.URL+"/secret.txt): download: connection to 127.0.0.1 (loopback) refused by the client's policy (the client's artifact address_denylist)",
		failed.DownloadError)
	must.Eq(t, 0, requests.Load(), must.Sprint("the loopback service was asked"))

	resp := do(t, a, http.MethodGet, "/v1/client/fs/ls/"+alloc.ID+"?path=alloc/data", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, "[]\n", string(resp.body))
	resp = do(t, a, http.MethodGet, "/v1/client/fs/logs/"+alloc.ID+"?task=t&type=stdout&plain=true", nil)
	must.StrNotContains(t, string(resp.body), "secret")
}
