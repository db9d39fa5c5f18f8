package e2e

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/e2e/agentproc"
)

// secureTLSBlock is the tls and acl blocks of every agent of a secure
// cluster: the TLS test's (HTTPS only, mutual TLS on the RPC port, names
// checked), and ACLs on.
const secureTLSBlock = tlsAgentConfig + `
acl {
  enabled = true
}
`

const secureServerConfig = `
name      = %q
data_dir  = %q
bind_addr = "127.0.0.1"

server {
  enabled          = true
  bootstrap_expect = 3
  encrypt          = %q
  server_join {
    retry_join = [%s]
  }
  min_heartbeat_ttl = "4s"
  heartbeat_grace   = "3s"
}
`

// secureCluster is three servers and two clients, each a process with
// its own data dir, everything on: HTTPS, mutual TLS between agents, ACLs.
type secureCluster struct {
	t       *testing.T
	pki     func(name string) string
	servers []*agentproc.Agent
	clients []*agentproc.Agent
	// mgmt is the bootstrap token's secret.
	mgmt string
}

// cliTLS is how the CLI, and the API clients, reach the agents.
func (c *secureCluster) cliTLS() *api.TLSConfig {
	return &api.TLSConfig{
		CACert:     c.pki("drover-agent-ca.pem"),
		ClientCert: c.pki("global-cli-drover.pem"),
		ClientKey:  c.pki("global-cli-drover-key.pem"),
	}
}

// as drives server i with token secret, from the API and the CLI.
func (c *secureCluster) as(i int, secret string) *testAgent {
	a := c.servers[i]
	tlsCfg := c.cliTLS()
	client, err := api.NewClient(&api.Config{Address: a.Addr, TLSConfig: tlsCfg, Token: secret})
	must.NoError(c.t, err)
	env := []string{
		"NOMAD_CACERT=" + tlsCfg.CACert,
		"NOMAD_CLIENT_CERT=" + tlsCfg.ClientCert,
		"NOMAD_CLIENT_KEY=" + tlsCfg.ClientKey,
	}
	if secret != "" {
		env = append(env, "NOMAD_TOKEN="+secret)
	}
	return &testAgent{Agent: a, t: c.t, api: client, dir: c.t.TempDir(), env: env}
}

// startSecureCluster makes a CA and certificates with the binary's tls
// commands and starts the cluster's five agents with them.
func startSecureCluster(t *testing.T) *secureCluster {
	t.Helper()
	skipShort(t)
	dir := t.TempDir()
	c := &secureCluster{t: t, pki: func(name string) string { return filepath.Join(dir, name) }}
	hosts := []string{clientHost(t, 0), clientHost(t, 1)}
	droverIn(t, dir, "tls", "ca", "create")
	droverIn(t, dir, "tls", "cert", "create", "-server")
	clientArgs := []string{"tls", "cert", "create", "-client"}
	for _, h := range hosts {
		clientArgs = append(clientArgs, "-additional-ipaddress", h)
	}
	droverIn(t, dir, clientArgs...)
	droverIn(t, dir, "tls", "cert", "create", "-cli")
	key := drover(t, "operator", "keygen")
	registration := drover(t, "operator", "keygen", "-registration-secret", key)

	var rpcAddrs []string
	httpPorts, rpcPorts := make([]int, 3), make([]int, 3)
	for i := range 3 {
		httpPorts[i], rpcPorts[i] = freeLoopbackPort(t, "127.0.0.1"), freeLoopbackPort(t, "127.0.0.1")
		rpcAddrs = append(rpcAddrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(rpcPorts[i])))
	}
	serverTLS := fmt.Sprintf(secureTLSBlock, c.pki("drover-agent-ca.pem"), c.pki("global-server-drover.pem"), c.pki("global-server-drover-key.pem"))
	for i := range 3 {
		sdir := mkdir(t, filepath.Join(dir, fmt.Sprintf("server-%d", i)))
		config := writeFile(t, sdir, "agent.hcl", fmt.Sprintf(secureServerConfig,
			fmt.Sprintf("server-%d", i), filepath.Join(sdir, "data"), key, agentproc.HCLStrings(rpcAddrs))+serverTLS)
		c.servers = append(c.servers, agentproc.Start(t, agentproc.Options{
			Dir: sdir, HTTPPort: httpPorts[i], RPCPort: rpcPorts[i],
			Args: []string{"-config", config},
			TLS:  c.cliTLS(),
		}))
	}
	for i := range c.servers {
		c.as(i, "").waitLeader()
	}

	clientTLS := fmt.Sprintf(secureTLSBlock, c.pki("drover-agent-ca.pem"), c.pki("global-client-drover.pem"), c.pki("global-client-drover-key.pem"))
	for i, host := range hosts {
		cdir := mkdir(t, filepath.Join(dir, fmt.Sprintf("client-%d", i)))
		dataDir := filepath.Join(cdir, "data")
		config := writeFile(t, cdir, "agent.hcl", agentproc.ClientConfig(
			fmt.Sprintf("client-%d", i), dataDir, host, rpcAddrs, registration)+clientTLS)
		httpPort := freeLoopbackPort(t, host)
		a := agentproc.Start(t, agentproc.Options{
			Dir: cdir, HTTPPort: httpPort, RPCPort: freeLoopbackPort(t, host),
			Args:     []string{"-config", config},
			TLS:      c.cliTLS(),
			TaskPath: filepath.Join(dataDir, "alloc") + string(filepath.Separator),
		})
		a.Addr = "https://" + net.JoinHostPort(host, strconv.Itoa(httpPort))
		c.clients = append(c.clients, a)
	}
	return c
}

// TestSecureCluster_MaxRunWithTLSAndACLs runs three servers and two clients
// with HTTPS, mutual TLS on the RPC port and ACLs on, bootstraps the ACL
// system and writes policies and tokens with the CLI, and runs the
// DESIGN.md example with a token: it behaves as without TLS and ACLs (the
// group runs 10 s, maxrun is killed at the deadline, maxrun2 ends on its
// own, the allocation is complete with the reason, the job dead). A token
// that lacks submit-raw-exec, and no token at all, are refused.
func TestSecureCluster_MaxRunWithTLSAndACLs(t *testing.T) {
	t.Parallel()
	c := startSecureCluster(t)
	anon := c.as(0, "")

	out := anon.mustCLI("acl bootstrap")
	c.mgmt = regexp.MustCompile(`Secret ID\s+= (\S+)`).FindStringSubmatch(out)[1]
	admin := c.as(1, c.mgmt)
	policies := map[string]string{
		"dev": `namespace "default" { policy = "write" }
node { policy = "read" }`,
		"ops": `namespace "default" {
  policy       = "write"
  capabilities = ["submit-raw-exec"]
}
node  { policy = "read" }
agent { policy = "read" }`,
	}
	secrets := map[string]string{}
	for name, rules := range policies {
		admin.mustCLI("acl policy apply", name, writeFile(t, admin.dir, name+".hcl", rules))
		out := admin.mustCLI("acl token create", "-name", name, "-policy", name)
		secrets[name] = regexp.MustCompile(`Secret ID\s+= (\S+)`).FindStringSubmatch(out)[1]
	}

	// Every server answers with the token, leader or not; both nodes are
	// ready.
	ops := c.as(2, secrets["ops"])
	ops.waitFor("two ready nodes", readyTimeout, func() error {
		nodes, _, err := ops.api.Nodes().List(nil)
		if err != nil {
			return err
		}
		ready := 0
		for _, n := range nodes {
			if n.Status == api.NodeStatusReady {
				ready++
			}
		}
		if ready != 2 {
			return fmt.Errorf("%w: %d of 2 nodes ready", errNotYet, ready)
		}
		return nil
	})

	path := writeFile(t, ops.dir, "maxrun.hcl", designExample)
	for who, a := range map[string]*testAgent{"no token": c.as(0, ""), "dev": c.as(0, secrets["dev"])} {
		out, code := a.cli("job run", "-detach", path)
		must.NotEq(t, 0, code, must.Sprintf("%s ran a raw_exec job: %s", who, out))
		must.StrContains(t, out, "Permission denied", must.Sprintf("%s: %s", who, out))
	}
	_, _, err := admin.api.Jobs().Info("maxrun", nil)
	must.True(t, api.IsNotFound(err), must.Sprintf("a refused run registered the job: %v", err))

	ops.mustCLI("job run", "-detach", path)
	running := ops.waitRunning("maxrun")
	deadline := deadlineOf(t, running, 10*time.Second)
	status := ops.mustCLI("alloc status", running.ID)
	must.RegexMatch(t, regexp.MustCompile(`Max Run Duration\s+= 10s`), status)

	done := ops.waitAlloc(running.ID, "complete", 40*time.Second, clientStatus(api.AllocClientStatusComplete))
	mustTimedOutAt(t, done, "maxrun", deadline, killWithin)
	second := task(t, done, "maxrun2")
	must.False(t, second.Failed)
	must.Nil(t, event(second, "Killing"), must.Sprintf("maxrun2 ended on its own: %v", events(second)))
	must.Eq(t, 0, event(second, "Terminated").ExitCode)
	wall := lastFinished(done).Sub(unixTime(done.CreateTime))
	must.True(t, wall >= 10*time.Second && wall <= 10*time.Second+killWithin,
		must.Sprintf("group wall time %s, want within [10s, %s]", wall, 10*time.Second+killWithin))
	ops.waitJobStatus("maxrun", "dead", 10*time.Second)

	// The node's own HTTPS API checks the token too: the logs of the
	// allocation need read-logs, which dev has and no token has not.
	out, code := c.as(1, "").cli("alloc logs", done.ID, "maxrun2")
	must.NotEq(t, 0, code, must.Sprint(out))
	must.StrContains(t, out, "403")
	c.as(1, secrets["dev"]).mustCLI("alloc logs", done.ID, "maxrun2")
}
