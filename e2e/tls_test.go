package e2e

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/e2e/agentproc"
)

const tlsAgentConfig = `
tls {
  http                   = true
  rpc                    = true
  ca_file                = %q
  cert_file              = %q
  key_file               = %q
  verify_server_hostname = true
  verify_https_client    = true
}
`

// TestTLS_CLIAgainstAnHTTPSAgent makes a CA and certificates with the
// binary's tls commands, starts an agent with TLS on for HTTP and RPC with
// them, and runs the CLI against it with the TLS flags and with Nomad's
// environment variables.
func TestTLS_CLIAgainstAnHTTPSAgent(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	pki := func(name string) string { return filepath.Join(dir, name) }
	droverIn(t, dir, "tls", "ca", "create")
	droverIn(t, dir, "tls", "cert", "create", "-server")
	droverIn(t, dir, "tls", "cert", "create", "-cli")

	config := writeFile(t, dir, "tls.hcl", fmt.Sprintf(tlsAgentConfig,
		pki("drover-agent-ca.pem"), pki("global-server-drover.pem"), pki("global-server-drover-key.pem")))
	allocDir := filepath.Join(dir, "alloc")
	writeFile(t, dir, "alloc.hcl", fmt.Sprintf("client {\n  alloc_dir = %q\n}\n", allocDir))
	a := readyAgent(t, agentproc.Start(t, agentproc.Options{
		Dir:  dir,
		Args: []string{"-dev", "-config", config, "-config", filepath.Join(dir, "alloc.hcl")},
		TLS: &api.TLSConfig{
			CACert:     pki("drover-agent-ca.pem"),
			ClientCert: pki("global-cli-drover.pem"),
			ClientKey:  pki("global-cli-drover-key.pem"),
		},
		TaskPath: allocDir + string(filepath.Separator),
	}), dir)
	must.StrHasPrefix(t, "https://", a.Addr)

	flags := []string{
		"-ca-cert=" + pki("drover-agent-ca.pem"),
		"-client-cert=" + pki("global-cli-drover.pem"),
		"-client-key=" + pki("global-cli-drover-key.pem"),
	}
	out := a.mustCLI("server members", flags...)
	must.StrContains(t, out, "alive")

	job := writeFile(t, dir, "hello.hcl", `
job "hello" {
  type = "batch"
  group "hello" {
    task "hello" {
      driver = "raw_exec"
      config {
        command = "/bin/echo"
        args    = ["hello over TLS"]
      }
    }
  }
}
`)
	env := []string{
		"NOMAD_CACERT=" + pki("drover-agent-ca.pem"),
		"NOMAD_CLIENT_CERT=" + pki("global-cli-drover.pem"),
		"NOMAD_CLIENT_KEY=" + pki("global-cli-drover-key.pem"),
	}
	out, code := a.cliWithEnv(env, "job run", job)
	must.Eq(t, 0, code, must.Sprint(out))
	allocs := a.waitAllocs("hello", 1, "complete", readyTimeout, clientStatus("complete"))
	out, code = a.cliWithEnv(env, "alloc logs", allocs[0].ID)
	must.Eq(t, 0, code, must.Sprint(out))
	must.StrContains(t, out, "hello over TLS")

	// Without the client certificate, or without the CA, the CLI gets no
	// answer.
	out, code = a.cli("server members", "-ca-cert="+pki("drover-agent-ca.pem"))
	must.Eq(t, 1, code, must.Sprint(out))
	out, code = a.cli("server members", flags[1:]...)
	must.Eq(t, 1, code, must.Sprint(out))
	must.StrContains(t, out, "certificate")
}
