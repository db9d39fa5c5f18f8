package command

import (
	"crypto/x509"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	agentconfig "github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/tlsutil"
)

// makeTLSSet runs the tls commands in a new working directory and returns
// it: a CA and a server, a client and a CLI certificate for region global.
func makeTLSSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"tls", "ca", "create"},
		{"tls", "cert", "create", "-server"},
		{"tls", "cert", "create", "-client"},
		{"tls", "cert", "create", "-cli", "-additional-dnsname", "drover.example.com", "-additional-ipaddress", "10.0.0.9"},
	} {
		code, out, errOut := runCLI(t, "", args...)
		must.Eq(t, 0, code, must.Sprintf("%v: %s", args, errOut))
		must.StrContains(t, out, "saved to")
	}
	return dir
}

func TestTLSCommands_MakeAWorkingSet(t *testing.T) {
	dir := makeTLSSet(t)
	for _, name := range []string{
		"drover-agent-ca.pem", "drover-agent-ca-key.pem",
		"global-server-drover.pem", "global-server-drover-key.pem",
		"global-client-drover.pem", "global-client-drover-key.pem",
		"global-cli-drover.pem", "global-cli-drover-key.pem",
	} {
		info, err := os.Stat(filepath.Join(dir, name))
		must.NoError(t, err)
		if strings.HasSuffix(name, "-key.pem") {
			must.Eq(t, os.FileMode(0o600), info.Mode().Perm(), must.Sprintf("%s is a key: only its owner reads it", name))
		}
	}

	cases := []struct {
		role  tlsutil.Role
		names []string
		ips   []string
		usage []x509.ExtKeyUsage
	}{
		{tlsutil.RoleServer, []string{"server.global.nomad", "localhost"}, []string{"127.0.0.1"},
			[]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}},
		{tlsutil.RoleClient, []string{"client.global.nomad", "localhost"}, []string{"127.0.0.1"},
			[]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}},
		{tlsutil.RoleCLI, []string{"cli.global.nomad", "localhost", "drover.example.com"}, []string{"127.0.0.1", "10.0.0.9"},
			[]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}},
	}
	for _, tc := range cases {
		t.Run(string(tc.role), func(t *testing.T) {
			base := "global-" + string(tc.role) + "-drover"
			m, err := tlsutil.Load(tlsutil.Files{CAFile: "drover-agent-ca.pem", CertFile: base + ".pem", KeyFile: base + "-key.pem"})
			must.NoError(t, err)
			must.Eq(t, tc.names, m.Leaf.DNSNames)
			var ips []string
			for _, ip := range m.Leaf.IPAddresses {
				ips = append(ips, ip.String())
			}
			must.Eq(t, tc.ips, ips)
			must.Eq(t, tc.usage, m.Leaf.ExtKeyUsage)
			_, err = m.Leaf.Verify(x509.VerifyOptions{Roots: m.CAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
			must.NoError(t, err, must.Sprint("the CA signed it"))
		})
	}
}

func TestTLSCommands_NeverReplaceFiles(t *testing.T) {
	makeTLSSet(t)
	before, err := os.ReadFile("global-server-drover-key.pem")
	must.NoError(t, err)
	for _, args := range [][]string{{"tls", "ca", "create"}, {"tls", "cert", "create", "-server"}} {
		code, _, errOut := runCLI(t, "", args...)
		must.Eq(t, 1, code)
		must.StrContains(t, errOut, "already exists")
	}
	after, err := os.ReadFile("global-server-drover-key.pem")
	must.NoError(t, err)
	must.Eq(t, before, after)
}

func TestTLSCertCreate_BadInput(t *testing.T) {
	makeTLSSet(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, "exactly one of -server, -client or -cli"},
		{[]string{"-server", "-client"}, "exactly one of -server, -client or -cli"},
		{[]string{"-client", "-region", "a.b"}, `-region "a.b" is not a region name`},
		{[]string{"-client", "-additional-ipaddress", "10.0.0"}, `-additional-ipaddress "10.0.0" is not an IP address`},
		{[]string{"-client", "-additional-dnsname", "a b"}, `-additional-dnsname "a b" is not a DNS name`},
		// A role's name on another role's certificate would make it that
		// role's: a client certificate naming server.global.nomad was
		// taken as a server's on the RPC port.
		{[]string{"-client", "-additional-dnsname", "server.global.nomad"}, `-additional-dnsname "server.global.nomad" names the server role`},
		{[]string{"-client", "-additional-dnsname", "Server.EU.nomad."}, "names the server role"},
		{[]string{"-cli", "-additional-dnsname", "server.global.nomad"}, "names the server role"},
		{[]string{"-cli", "-additional-dnsname", "client.global.nomad"}, "names the client role"},
		{[]string{"-server", "-additional-dnsname", "client.global.nomad"}, "names the client role"},
		{[]string{"-client", "-ca", "nope.pem"}, "drover tls ca create"},
		{[]string{"-client", "-key", "global-client-drover-key.pem"}, "does not belong to the CA certificate"},
		{[]string{"-client", "-region", "eu", "-days", "5000"}, "outlive its CA"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, "", append([]string{"tls", "cert", "create"}, tc.args...)...)
			must.Eq(t, 1, code)
			must.StrContains(t, errOut, tc.want)
		})
	}
}

// TestCLI_TLSFlagsAndEnvironment runs the CLI against an agent that serves
// HTTPS and verifies its clients, with the files the tls commands made.
func TestCLI_TLSFlagsAndEnvironment(t *testing.T) {
	dir := makeTLSSet(t)
	path := func(name string) string { return filepath.Join(dir, name) }
	_, addr := testAgentWith(t, func(cfg *agentconfig.Config) {
		cfg.TLS = agentconfig.TLSConfig{
			HTTP:              true,
			CAFile:            path("drover-agent-ca.pem"),
			CertFile:          path("global-server-drover.pem"),
			KeyFile:           path("global-server-drover-key.pem"),
			VerifyHTTPSClient: true,
		}
	})
	must.StrHasPrefix(t, "https://", addr)
	for _, v := range []string{"CACERT", "CAPATH", "CLIENT_CERT", "CLIENT_KEY", "TLS_SERVER_NAME", "SKIP_VERIFY"} {
		t.Setenv("DROVER_"+v, "")
		t.Setenv("NOMAD_"+v, "")
	}
	tlsFlags := []string{
		"-ca-cert", path("drover-agent-ca.pem"),
		"-client-cert", path("global-cli-drover.pem"),
		"-client-key", path("global-cli-drover-key.pem"),
	}
	members := func(extra ...string) (int, string) {
		code, out, errOut := runCLI(t, "", append([]string{"server", "members", "-address", addr}, extra...)...)
		return code, out + errOut
	}

	code, out := members(tlsFlags...)
	must.Eq(t, 0, code, must.Sprint(out))
	must.StrContains(t, out, "alive")

	// The agent's certificate names server.global.nomad: that name passes,
	// another does not.
	code, out = members(append(tlsFlags, "-tls-server-name", "server.global.nomad")...)
	must.Eq(t, 0, code, must.Sprint(out))
	code, out = members(append(tlsFlags, "-tls-server-name", "client.eu.nomad")...)
	must.Eq(t, 1, code)
	must.StrContains(t, out, "certificate")

	// Without a client certificate the agent refuses the connection.
	code, out = members("-ca-cert", path("drover-agent-ca.pem"))
	must.Eq(t, 1, code, must.Sprint(out))

	// Without the CA the agent's certificate is not trusted, unless
	// verification is skipped.
	code, out = members("-client-cert", path("global-cli-drover.pem"), "-client-key", path("global-cli-drover-key.pem"))
	must.Eq(t, 1, code)
	must.StrContains(t, out, "certificate")
	code, out = members("-client-cert", path("global-cli-drover.pem"), "-client-key", path("global-cli-drover-key.pem"), "-tls-skip-verify")
	must.Eq(t, 0, code, must.Sprint(out))

	// Nomad's environment variables do the same as the flags, and a flag
	// wins over them.
	t.Setenv("NOMAD_CACERT", path("drover-agent-ca.pem"))
	t.Setenv("NOMAD_CLIENT_CERT", path("global-cli-drover.pem"))
	t.Setenv("NOMAD_CLIENT_KEY", path("global-cli-drover-key.pem"))
	code, out = members()
	must.Eq(t, 0, code, must.Sprint(out))
	t.Setenv("NOMAD_TLS_SERVER_NAME", "client.eu.nomad")
	code, _ = members()
	must.Eq(t, 1, code)
	code, out = members("-tls-server-name", "server.global.nomad")
	must.Eq(t, 0, code, must.Sprint(out))

	// A plain HTTP request to the HTTPS port is refused.
	code, out = runCLIOut(t, "server", "members", "-address", "http://"+strings.TrimPrefix(addr, "https://"))
	must.Eq(t, 1, code)
	must.StrContains(t, out, "HTTPS")
}

func runCLIOut(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, out, errOut := runCLI(t, "", args...)
	return code, out + errOut
}

func TestOperatorKeygen(t *testing.T) {
	keys := map[string]bool{}
	for range 2 {
		code, out, errOut := runCLI(t, "", "operator", "keygen")
		must.Eq(t, 0, code, must.Sprint(errOut))
		key := strings.TrimSpace(out)
		raw, err := base64.StdEncoding.DecodeString(key)
		must.NoError(t, err)
		must.Len(t, 32, raw)
		keys[key] = true
	}
	must.MapLen(t, 2, keys, must.Sprint("every key is new"))
}

func TestOperatorKeygen_RegistrationSecret(t *testing.T) {
	const key = "ZHJvdmVyIHRlc3QgY2x1c3RlciBrZXksIDMyIGJ5dGU="
	const want = "jCLBPDVLCqOazk9EnZzjNotibq+h7RLZKOIbbBTHyk4="
	code, out, errOut := runCLI(t, "", "operator", "keygen", "-registration-secret", key)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, want, strings.TrimSpace(out))

	code, out, errOut = runCLI(t, key+"\n", "operator", "keygen", "-registration-secret", "-")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, want, strings.TrimSpace(out))

	code, _, errOut = runCLI(t, "", "operator", "keygen", "-registration-secret", "c2hvcnQ=")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "a key is 16, 24 or 32 bytes, this one 5")

	code, _, errOut = runCLI(t, "", "operator", "keygen", "extra")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "no arguments")
}
