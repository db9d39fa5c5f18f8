package api

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
)

// startHTTPSAgent serves GET /v1/status/leader over HTTPS with a server
// certificate of ca; with verifyClients it requires a client certificate
// ca signed.
func startHTTPSAgent(t *testing.T, ca *tlstest.CA, verifyClients bool) string {
	t.Helper()
	m := tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global"))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`"127.0.0.1:4647"`))
	}))
	srv.TLS = m.ServerConfig(verifyClients)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

func leaderOver(t *testing.T, cfg *Config) (string, error) {
	t.Helper()
	c, err := NewClient(cfg)
	if err != nil {
		return "", err
	}
	return c.Status().Leader()
}

func TestTLS_VerifiesTheAgent(t *testing.T) {
	ca := tlstest.NewCA(t)
	addr := startHTTPSAgent(t, ca, false)

	leader, err := leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{CACert: ca.CAFile}})
	must.NoError(t, err)
	must.Eq(t, "127.0.0.1:4647", leader)

	// The same CA as PEM bytes, and as a directory of CA files.
	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{CACertPEM: ca.PEM.Cert}})
	must.NoError(t, err)
	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{CAPath: filepath.Dir(ca.CAFile)}})
	must.Error(t, err, must.Sprint("the directory holds keys too, which are not certificates"))
	caDir := t.TempDir()
	must.NoError(t, os.WriteFile(filepath.Join(caDir, "ca.pem"), ca.PEM.Cert, 0o600))
	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{CAPath: caDir}})
	must.NoError(t, err)

	// A server name the certificate carries, and one it does not.
	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{CACert: ca.CAFile, TLSServerName: "server.global.nomad"}})
	must.NoError(t, err)
	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{CACert: ca.CAFile, TLSServerName: "client.global.nomad"}})
	must.ErrorContains(t, err, "certificate")

	// Another CA's agent is refused, unless verification is skipped.
	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{CACert: tlstest.NewCA(t).CAFile}})
	must.ErrorContains(t, err, "certificate")
	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{Insecure: true}})
	must.NoError(t, err)
}

func TestTLS_PresentsAClientCertificate(t *testing.T) {
	ca := tlstest.NewCA(t)
	addr := startHTTPSAgent(t, ca, true)
	cli := ca.Files(t, "cli", tlsutil.RoleCLI, "global")

	_, err := leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{CACert: ca.CAFile}})
	must.Error(t, err, must.Sprint("the agent requires a client certificate"))

	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{
		CACert: ca.CAFile, ClientCert: cli.CertFile, ClientKey: cli.KeyFile,
	}})
	must.NoError(t, err)

	certPEM, err := os.ReadFile(cli.CertFile)
	must.NoError(t, err)
	keyPEM, err := os.ReadFile(cli.KeyFile)
	must.NoError(t, err)
	_, err = leaderOver(t, &Config{Address: addr, TLSConfig: &TLSConfig{
		CACert: ca.CAFile, ClientCertPEM: certPEM, ClientKeyPEM: keyPEM,
	}})
	must.NoError(t, err)

	_, err = NewClient(&Config{Address: addr, TLSConfig: &TLSConfig{ClientCert: cli.CertFile}})
	must.ErrorContains(t, err, "needs both the certificate and its key")
}

func TestTLS_IgnoredWithOwnHTTPClient(t *testing.T) {
	ca := tlstest.NewCA(t)
	addr := startHTTPSAgent(t, ca, false)
	own := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	_, err := leaderOver(t, &Config{Address: addr, HttpClient: own, TLSConfig: &TLSConfig{CACert: "/does/not/exist"}})
	must.NoError(t, err)
}
