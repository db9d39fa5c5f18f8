package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/e2e/agentproc"
	"github.com/drover-io/drover/internal/waitfor"
)

// testCluster is one server agent and its client agents, each a process
// of its own with its own data dir, as on separate machines.
type testCluster struct {
	// t is the test or subtest driving the cluster now; owner is the test
	// that started it, which its agent processes live as long as.
	t     *testing.T
	owner *testing.T
	// server answers every API call and CLI command: the clients run no
	// server, and send a user to one.
	server  *testAgent
	rpcAddr string
	clients []*clusterClient
	// registrationSecret lets the client agents register their nodes.
	registrationSecret string
}

// clusterClient is a client agent of a testCluster. Its data dir, address
// and ports outlive its process, so that it can be started again as the
// same node.
type clusterClient struct {
	name     string
	host     string
	dir      string
	httpPort int
	rpcPort  int
	// agent is the current process; a restart replaces it.
	agent *agentproc.Agent
}

const clusterServerConfig = `
data_dir  = %q
bind_addr = "127.0.0.1"

server {
  enabled          = true
  bootstrap_expect = 1
  encrypt          = %q

  # A client that stops heartbeating is down after about 6-8 s instead of
  # 20 s; still long enough that a restarting client (a fraction of a
  # second) or a loaded machine does not lose its node.
  min_heartbeat_ttl = "4s"
  heartbeat_grace   = "3s"
}
`

// startCluster starts a server on 127.0.0.1 and n client agents, each on
// a loopback address of its own (127.0.0.2, 127.0.0.3, ...) when the
// machine lets a process bind one, and waits until every client's node is
// ready. Every process is stopped when the test ends.
func startCluster(t *testing.T, n int) *testCluster {
	t.Helper()
	skipShort(t)
	dir := t.TempDir()
	serverDir := filepath.Join(dir, "server")
	key := drover(t, "operator", "keygen")
	config := writeFile(t, mkdir(t, serverDir), "agent.hcl",
		fmt.Sprintf(clusterServerConfig, filepath.Join(serverDir, "data"), key))
	rpcPort := freeLoopbackPort(t, "127.0.0.1")
	a := agentproc.Start(t, agentproc.Options{
		Dir:      serverDir,
		HTTPPort: freeLoopbackPort(t, "127.0.0.1"),
		RPCPort:  rpcPort,
		Args:     []string{"-config", config},
	})
	c := &testCluster{
		t:       t,
		owner:   t,
		server:  &testAgent{Agent: a, t: t, api: a.API(), dir: serverDir},
		rpcAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(rpcPort)),

		registrationSecret: drover(t, "operator", "keygen", "-registration-secret", key),
	}
	c.server.waitLeader()

	for i := range n {
		host := clientHost(t, i)
		cl := &clusterClient{
			name: fmt.Sprintf("client-%c", 'a'+i),
			host: host,
			dir:  mkdir(t, filepath.Join(dir, fmt.Sprintf("client-%c", 'a'+i))),
		}
		cl.httpPort = freeLoopbackPort(t, host)
		cl.rpcPort = freeLoopbackPort(t, host)
		c.clients = append(c.clients, cl)
		c.startClient(cl)
	}
	for _, cl := range c.clients {
		c.waitNodeStatus(cl, api.NodeStatusReady, readyTimeout)
	}
	return c
}

// startClient starts cl's agent process, the first time or again on the
// same data dir and ports.
func (c *testCluster) startClient(cl *clusterClient) {
	c.t.Helper()
	dataDir := filepath.Join(cl.dir, "data")
	config := writeFile(c.t, cl.dir, "agent.hcl",
		agentproc.ClientConfig(cl.name, dataDir, cl.host, []string{c.rpcAddr}, c.registrationSecret))
	cl.agent = agentproc.Start(ownedBy{T: c.t, owner: c.owner}, agentproc.Options{
		Dir:      cl.dir,
		HTTPPort: cl.httpPort,
		RPCPort:  cl.rpcPort,
		Args:     []string{"-config", config},
		TaskPath: filepath.Join(dataDir, "alloc") + string(filepath.Separator),
	})
	// agentproc assumes 127.0.0.1; this client listens on its own host.
	cl.agent.Addr = "http://" + net.JoinHostPort(cl.host, strconv.Itoa(cl.httpPort))
}

// drover runs the drover binary with args, which must succeed, and returns
// what it printed, trimmed.
func drover(t *testing.T, args ...string) string {
	t.Helper()
	return droverIn(t, "", args...)
}

// droverIn is drover run in the working directory dir.
func droverIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(agentproc.Binary(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	must.NoError(t, err, must.Sprintf("drover %v: %s", args, out))
	return strings.TrimSpace(string(out))
}

// with is the cluster driven from a subtest: failures and waits are the
// subtest's, while the agent processes it starts live as long as the
// cluster's test.
func (c *testCluster) with(t *testing.T) *testCluster {
	out := *c
	out.t = t
	out.server = c.server.with(t)
	return &out
}

// ownedBy is a subtest whose cleanups are its owner's: an agent started
// by one step of a test is stopped when the whole test ends.
type ownedBy struct {
	*testing.T
	owner *testing.T
}

func (o ownedBy) Cleanup(f func()) { o.owner.Cleanup(f) }

// client returns the cluster's client whose node is named name.
func (c *testCluster) client(name string) *clusterClient {
	c.t.Helper()
	for _, cl := range c.clients {
		if cl.name == name {
			return cl
		}
	}
	c.t.Fatalf("no client agent runs node %q", name)
	return nil
}

// otherClient returns a client other than cl.
func (c *testCluster) otherClient(cl *clusterClient) *clusterClient {
	c.t.Helper()
	for _, o := range c.clients {
		if o != cl {
			return o
		}
	}
	c.t.Fatalf("the cluster has no client besides %s", cl.name)
	return nil
}

// node returns the server's view of cl's node.
func (c *testCluster) node(cl *clusterClient) (*api.NodeListStub, error) {
	nodes, _, err := c.server.api.Nodes().List(nil)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if n.Name == cl.name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("%w: no node %q among %d", errNotYet, cl.name, len(nodes))
}

// waitNodeStatus waits until the servers report cl's node with status
// want, and returns it.
func (c *testCluster) waitNodeStatus(cl *clusterClient, want string, timeout time.Duration) *api.NodeListStub {
	c.t.Helper()
	var out *api.NodeListStub
	c.server.waitFor(fmt.Sprintf("node %s %s", cl.name, want), timeout, func() error {
		n, err := c.node(cl)
		if err != nil {
			return err
		}
		if n.Status != want {
			return fmt.Errorf("%w: node %s is %s", errNotYet, cl.name, n.Status)
		}
		out = n
		return nil
	})
	return out
}

// terminate stops cl's agent as `kill <pid>` would: SIGTERM, then a wait
// for the process to end. Unlike agentproc's Stop, it leaves the task
// processes running, as a real agent shutdown does.
func (cl *clusterClient) terminate(t *testing.T) {
	t.Helper()
	must.NoError(t, syscall.Kill(cl.agent.Pid(), syscall.SIGTERM))
	waitfor.True(t, fmt.Sprintf("client agent %s to exit on SIGTERM", cl.name), cl.agent.Exited,
		wait.Timeout(30*time.Second), wait.Gap(pollGap))
}

// clientHost is the loopback address of the i-th client: 127.0.0.(i+2)
// when this machine lets a process listen there (Linux routes all of
// 127.0.0.0/8 to lo), else 127.0.0.1.
func clientHost(t *testing.T, i int) string {
	t.Helper()
	host := fmt.Sprintf("127.0.0.%d", i+2)
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Logf("cannot listen on %s (%v): the client uses 127.0.0.1", host, err)
		return "127.0.0.1"
	}
	l.Close()
	return host
}

// freeLoopbackPort returns a TCP port on host that is free now.
func freeLoopbackPort(t *testing.T, host string) int {
	t.Helper()
	return agentproc.FreePortOn(t, host)
}

// mkdir creates dir and returns it.
func mkdir(t *testing.T, dir string) string {
	t.Helper()
	must.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}
