package tlsutil_test

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
)

// handshake runs a TLS handshake over loopback TCP between an accepting
// side configured with srv and a dialing side configured with cli, and
// returns the errors each side saw and what the accepting side was shown.
func handshake(t *testing.T, srv, cli *tls.Config) (peer tls.ConnectionState, srvErr, cliErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	defer ln.Close()
	deadline := time.Now().Add(10 * time.Second)
	done := make(chan error, 1)
	var server *tls.Conn
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer conn.Close()
		_ = conn.SetDeadline(deadline)
		server = tls.Server(conn, srv)
		done <- server.Handshake()
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	must.NoError(t, err)
	defer conn.Close()
	_ = conn.SetDeadline(deadline)
	cliErr = tls.Client(conn, cli).Handshake()
	srvErr = <-done
	if server != nil {
		peer = server.ConnectionState()
	}
	return peer, srvErr, cliErr
}

func TestTLS_RolesAreCheckedOnBothSides(t *testing.T) {
	ca := tlstest.NewCA(t)
	server := tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global"))
	client := tlstest.Material(t, ca.Files(t, "client", tlsutil.RoleClient, "global"))

	// A client dials a server and insists on the server role.
	peer, srvErr, cliErr := handshake(t, server.ServerConfig(true), client.DialConfig("global", tlsutil.RoleServer))
	must.NoError(t, srvErr)
	must.NoError(t, cliErr)
	role, ok := tlsutil.RoleOf(peer.PeerCertificates[0], "global")
	must.True(t, ok)
	must.Eq(t, tlsutil.RoleClient, role)

	// A client certificate cannot pass for a server.
	_, _, cliErr = handshake(t, client.ServerConfig(true), server.DialConfig("global", tlsutil.RoleServer))
	must.ErrorContains(t, cliErr, "names none of server.global.nomad")

	// Nor a server of another region.
	_, _, cliErr = handshake(t, server.ServerConfig(true), client.DialConfig("eu", tlsutil.RoleServer))
	must.ErrorContains(t, cliErr, "server.eu.nomad")
}

func TestTLS_OtherCAIsRefused(t *testing.T) {
	ca, other := tlstest.NewCA(t), tlstest.NewCA(t)
	server := tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global"))
	stranger := tlstest.Material(t, other.Files(t, "server", tlsutil.RoleServer, "global"))

	// The dialer does not trust a server its CA did not sign...
	_, _, cliErr := handshake(t, stranger.ServerConfig(true), server.DialConfig("global"))
	must.ErrorContains(t, cliErr, "verify the peer's certificate")

	// ...and the accepting side does not trust such a dialer.
	_, srvErr, _ := handshake(t, server.ServerConfig(true), stranger.DialConfig("global"))
	must.Error(t, srvErr)
}

func TestTLS_ClientCertificateRequiredOnlyWhenAsked(t *testing.T) {
	ca := tlstest.NewCA(t)
	server := tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global"))
	anonymous := &tls.Config{RootCAs: server.CAs, ServerName: "localhost", MinVersion: tls.VersionTLS12}

	_, srvErr, _ := handshake(t, server.ServerConfig(true), anonymous)
	must.ErrorContains(t, srvErr, "certificate")

	_, srvErr, cliErr := handshake(t, server.ServerConfig(false), anonymous)
	must.NoError(t, srvErr)
	must.NoError(t, cliErr)
}

func TestLoad_ErrorsNameTheFile(t *testing.T) {
	ca := tlstest.NewCA(t)
	files := ca.Files(t, "server", tlsutil.RoleServer, "global")

	_, err := tlsutil.Load(tlsutil.Files{CertFile: files.CertFile})
	must.ErrorContains(t, err, "TLS needs ca_file, key_file")

	bad := filepath.Join(t.TempDir(), "bad.pem")
	must.NoError(t, os.WriteFile(bad, []byte("not pem"), 0o600))
	_, err = tlsutil.Load(tlsutil.Files{CAFile: bad, CertFile: files.CertFile, KeyFile: files.KeyFile})
	must.ErrorContains(t, err, bad)

	// A key file that holds a certificate: a classic mix-up.
	_, err = tlsutil.Load(tlsutil.Files{CAFile: files.CAFile, CertFile: files.CertFile, KeyFile: files.CertFile})
	must.ErrorContains(t, err, files.CertFile)

	// The CA's key in a CA file.
	keyInCA := filepath.Join(t.TempDir(), "ca.pem")
	must.NoError(t, os.WriteFile(keyInCA, ca.PEM.Key, 0o600))
	_, err = tlsutil.Load(tlsutil.Files{CAFile: keyInCA, CertFile: files.CertFile, KeyFile: files.KeyFile})
	must.ErrorContains(t, err, `"EC PRIVATE KEY" block`)
}

func TestGenerateCert_RefusesAnotherCAsKey(t *testing.T) {
	ca, other := tlstest.NewCA(t), tlstest.NewCA(t)
	_, err := tlsutil.GenerateCert(tlsutil.PEM{Cert: ca.PEM.Cert, Key: other.PEM.Key}, tlsutil.CertOptions{CommonName: "x", Days: 1})
	must.ErrorContains(t, err, "does not belong to the CA certificate")

	_, err = tlsutil.GenerateCert(ca.PEM, tlsutil.CertOptions{CommonName: "x", Days: 365})
	must.ErrorContains(t, err, "outlive its CA")
}
