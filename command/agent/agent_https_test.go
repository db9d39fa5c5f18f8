package agent

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
)

// The agent's HTTPS port answers a connection past the cap 429, as its
// HTTP port does.
func TestAgent_HTTPSConnectionCapAnswers429(t *testing.T) {
	const limit = 2
	ca := tlstest.NewCA(t)
	a := testAgent(t, withTLS(ca.Files(t, "server", tlsutil.RoleServer, "global"), func(c *config.TLSConfig) { c.HTTP = true }),
		func(c *config.Config) { c.Limits.HTTPMaxConnsPerClient = limit })
	addr := a.HTTPAddr()
	dial := &tls.Config{RootCAs: a.tls.CAs, ServerName: "127.0.0.1"}
	for range limit {
		held := tls.Client(dialFrom(t, "127.0.0.2", addr), dial)
		t.Cleanup(func() { held.Close() })
		// Handshaken: past the cap's listener.
		must.NoError(t, held.Handshake())
	}

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: dial,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
			return d.DialContext(ctx, network, addr)
		},
	}}
	resp, err := client.Get("https://" + addr + "/v1/agent/self")
	must.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	must.NoError(t, err)
	must.Eq(t, http.StatusTooManyRequests, resp.StatusCode)
	must.Eq(t, "too many connections from your address: the limit is 2 at once (limits.http_max_conns_per_client)\n", string(body))
	mustStillAnswer(t, a)
}

// TestAgent_HTTPSHandshakeTimeout: the agent's HTTPS port closes a
// connection that never completes its handshake after
// limits.https_handshake_timeout, far sooner than the 10 s header
// timeout that Go's HTTP server would apply, and still serves requests.
func TestAgent_HTTPSHandshakeTimeout(t *testing.T) {
	ca := tlstest.NewCA(t)
	a := testAgent(t, withTLS(ca.Files(t, "server", tlsutil.RoleServer, "global"), func(c *config.TLSConfig) { c.HTTP = true }),
		func(c *config.Config) { c.Limits.HTTPSHandshakeTimeout = 200 * time.Millisecond })

	conn, err := net.Dial("tcp", a.HTTPAddr())
	must.NoError(t, err)
	defer conn.Close()
	must.NoError(t, conn.SetReadDeadline(time.Now().Add(8*time.Second)))
	_, err = io.ReadAll(conn)
	must.NoError(t, err, must.Sprint("the server should have closed the connection before the client's 8 s deadline"))

	var leader string
	get(t, a, "/v1/status/leader", &leader)
	must.Eq(t, a.Server().RPCAdvertise(), leader)
}
