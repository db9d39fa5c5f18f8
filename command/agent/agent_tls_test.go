package agent

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
	"github.com/drover-io/drover/structs"
)

// withTLS sets a tls block that uses files.
func withTLS(files tlsutil.Files, change func(*config.TLSConfig)) func(*config.Config) {
	return func(cfg *config.Config) {
		cfg.TLS = config.TLSConfig{CAFile: files.CAFile, CertFile: files.CertFile, KeyFile: files.KeyFile}
		change(&cfg.TLS)
	}
}

func TestAgent_HTTPSOnly(t *testing.T) {
	ca := tlstest.NewCA(t)
	a := testAgent(t, withTLS(ca.Files(t, "server", tlsutil.RoleServer, "global"), func(c *config.TLSConfig) {
		c.HTTP = true
		c.VerifyHTTPSClient = true
	}))

	var leader string
	get(t, a, "/v1/status/leader", &leader)
	must.Eq(t, a.Server().RPCAdvertise(), leader)

	var self struct{ Config struct{ TLSConfig selfTLS } }
	get(t, a, "/v1/agent/self", &self)
	must.True(t, self.Config.TLSConfig.EnableHTTP)
	must.True(t, self.Config.TLSConfig.VerifyHTTPSClient)
	must.Eq(t, a.config.TLS.CertFile, self.Config.TLSConfig.CertFile)

	// Plain HTTP gets a 400 from the TLS layer, never the API.
	resp, err := http.Get("http://" + a.HTTPAddr() + "/v1/status/leader")
	must.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	must.Eq(t, http.StatusBadRequest, resp.StatusCode)
	must.StrContains(t, string(body), "HTTPS")

	// With client verification on, a client without a certificate of the
	// CA is refused, and so is one with another CA's.
	for name, certs := range map[string][]tls.Certificate{
		"no certificate": nil,
		"another CA's":   {tlstest.Material(t, tlstest.NewCA(t).Files(t, "cli", tlsutil.RoleCLI, "global")).Cert},
	} {
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: a.tls.CAs, Certificates: certs}}}
		_, err = c.Get("https://" + a.HTTPAddr() + "/v1/status/leader")
		must.Error(t, err, must.Sprint(name))
	}
	cli := tlstest.Material(t, ca.Files(t, "cli", tlsutil.RoleCLI, "global"))
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: a.tls.CAs, Certificates: []tls.Certificate{cli.Cert}}}}
	resp, err = c.Get("https://" + a.HTTPAddr() + "/v1/status/leader")
	must.NoError(t, err)
	resp.Body.Close()
	must.Eq(t, http.StatusOK, resp.StatusCode)
}

func TestAgent_TLSFilesMustLoad(t *testing.T) {
	ca := tlstest.NewCA(t)
	files := ca.Files(t, "server", tlsutil.RoleServer, "global")
	files.KeyFile = files.CertFile
	cfg := config.DevConfig()
	cfg.Ports = config.Ports{HTTP: 0, RPC: 0}
	withTLS(files, func(c *config.TLSConfig) { c.HTTP = true })(cfg)
	_, err := NewAgent(cfg, hclog.NewNullLogger())
	must.ErrorContains(t, err, files.CertFile)
}

// nodeAgent serves /v1/client/* over HTTPS with the certificate files
// name, and reports the paths it was asked for.
func nodeAgent(t *testing.T, files tlsutil.Files) (addr string, paths <-chan string) {
	t.Helper()
	ch := make(chan string, 4)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ch <- r.URL.Path
		w.Write([]byte("from the node\n"))
	}))
	srv.TLS = tlstest.Material(t, files).ServerConfig(true)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), ch
}

// TestForward_ChecksTheNodesCertificate: a /v1/client request for an
// allocation on another node goes to the node's HTTPS API only when the
// node's certificate names the client role of the region.
func TestForward_ChecksTheNodesCertificate(t *testing.T) {
	ca := tlstest.NewCA(t)
	a := testAgent(t, withTLS(ca.Files(t, "server", tlsutil.RoleServer, "global"), func(c *config.TLSConfig) { c.HTTP = true }))
	registerJob(t, a, batchJobJSON("forwarded"))

	cases := []struct {
		name  string
		files tlsutil.Files
		want  int
		why   string
	}{
		{"a client of the region", ca.Files(t, "client", tlsutil.RoleClient, "global"), http.StatusOK, ""},
		{"a client of another region", ca.Files(t, "client-eu", tlsutil.RoleClient, "eu"), http.StatusBadGateway, "names none of client.global.nomad"},
		{"a certificate without a role", ca.FilesFor(t, "rogue", tlsutil.CertOptions{
			CommonName: "rogue.example", DNSNames: []string{"rogue.example"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		}), http.StatusBadGateway, "names none of"},
		{"another CA's client", tlstest.NewCA(t).Files(t, "client", tlsutil.RoleClient, "global"), http.StatusBadGateway, "certificate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr, paths := nodeAgent(t, tc.files)
			node := upsertNode(t, a, structs.GenerateUUID(), strings.ReplaceAll(tc.name, " ", "-"))
			node.HTTPAddr, node.TLSEnabled = addr, true
			_, err := a.Server().NodeRegister(t.Context(), node)
			must.NoError(t, err)
			alloc := upsertAlloc(t, a, structs.GenerateUUID(), "forwarded", structs.GenerateUUID(), node.ID)

			resp := do(t, a, http.MethodGet, "/v1/client/fs/logs/"+alloc.ID+"?task=maxrun&type=stdout&plain=true", nil)
			must.Eq(t, tc.want, resp.code, must.Sprint(resp))
			if tc.want == http.StatusOK {
				must.Eq(t, "from the node\n", string(resp.body))
				must.Eq(t, "/v1/client/fs/logs/"+alloc.ID, <-paths)
				return
			}
			must.StrContains(t, string(resp.body), tc.why)
			must.Eq(t, 0, len(paths), must.Sprint("nothing reached the node"))
		})
	}
}
