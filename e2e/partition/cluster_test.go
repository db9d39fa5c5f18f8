package partition

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/e2e/agentproc"
	"github.com/drover-io/drover/e2e/netns"
	"github.com/drover-io/drover/internal/waitfor"
)

// subnet holds the addresses of the test's network. 198.18.0.0/15 is
// reserved for benchmarking networks (RFC 2544): it names no real host,
// and here exists only inside the test's namespaces.
var subnet = netip.MustParsePrefix("198.18.0.0/24")

// Each agent has a namespace, and so the ports, to itself.
const (
	httpPort = 4646
	rpcPort  = 4647
)

// readyTimeout bounds the waits for a cluster to form, elect a leader
// and heal: raft's election timeouts are a second or two, and a loaded
// two-core machine may take several rounds.
const readyTimeout = 90 * time.Second

// member is an agent of the cluster, in its own namespace.
type member struct {
	name  string
	host  *netns.Host
	agent *agentproc.Agent
	// api reaches the agent from the observer's namespace; quick does
	// too, for the status calls that a server answers at once.
	api, quick *api.Client
}

func (m *member) rpcAddr() string {
	return net.JoinHostPort(m.host.IP.String(), strconv.Itoa(rpcPort))
}

// cluster is three servers and a client agent, each in a namespace of its
// own on one bridge, and the observer: the namespace the test's callers
// reach every agent's HTTP API from. No fault ever cuts the observer off.
type cluster struct {
	net      *netns.Net
	observer *netns.Host
	servers  []*member
	client   *member
}

const serverConfig = `
name      = %q
data_dir  = %q
bind_addr = %q

server {
  enabled          = true
  bootstrap_expect = 3
  encrypt          = %q
  server_join {
    retry_join     = [%s]
    retry_interval = "1s"
  }
}
`

// startCluster makes the network, starts the four agents and waits until
// the servers agree on a leader and the client's node is ready. Every
// process and namespace is removed when the test ends.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("partition: runs a cluster of real agents in real time")
	}
	n := netns.New(t, subnet)
	c := &cluster{net: n, observer: n.AddHost("obs", netip.MustParseAddr("198.18.0.2"))}
	dir := t.TempDir()
	key := keygen(t)
	secret := keygen(t, "-registration-secret", key)

	for i := range 3 {
		name := fmt.Sprintf("s%d", i)
		c.servers = append(c.servers, &member{name: name, host: n.AddHost(name, netip.AddrFrom4([4]byte{198, 18, 0, byte(10 + i)}))})
	}
	var join []string
	for _, s := range c.servers {
		join = append(join, s.rpcAddr())
	}
	for _, s := range c.servers {
		c.start(t, s, dir, fmt.Sprintf(serverConfig, s.name, filepath.Join(dir, s.name, "data"), s.host.IP, key, agentproc.HCLStrings(join)))
	}
	c.client = &member{name: "c0", host: n.AddHost("c0", netip.MustParseAddr("198.18.0.20"))}
	c.start(t, c.client, dir, agentproc.ClientConfig("c0", filepath.Join(dir, "c0", "data"), c.client.host.IP.String(), join, secret))

	c.waitLeader(t)
	c.waitClientReady(t)
	return c
}

// start starts m's agent with config, in m's namespace.
func (c *cluster) start(t *testing.T, m *member, dir, config string) {
	t.Helper()
	mdir := filepath.Join(dir, m.name)
	must.NoError(t, os.MkdirAll(mdir, 0o755))
	path := filepath.Join(mdir, "agent.hcl")
	must.NoError(t, os.WriteFile(path, []byte(config), 0o644))
	m.agent = agentproc.Start(t, agentproc.Options{
		Dir:        mdir,
		Host:       m.host.IP.String(),
		HTTPPort:   httpPort,
		RPCPort:    rpcPort,
		Args:       []string{"-config", path},
		TaskPath:   filepath.Join(mdir, "data", "alloc") + string(filepath.Separator),
		NetNS:      m.host.Path(),
		HTTPClient: c.observer.HTTPClient(apiTimeout),
	})
	m.api = m.agent.API()
	quick, err := api.NewClient(&api.Config{Address: m.agent.Addr, HttpClient: c.observer.HTTPClient(statusTimeout)})
	must.NoError(t, err)
	m.quick = quick
}

// apiTimeout bounds every call of the test's API clients, beyond the
// callers' own callTimeout: no wait of the test hangs on a server that
// does not answer. statusTimeout bounds the status calls.
const (
	apiTimeout    = 30 * time.Second
	statusTimeout = 2 * time.Second
)

// keygen runs `drover operator keygen args...` and returns the key.
func keygen(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(agentproc.Binary(t), append([]string{"operator", "keygen"}, args...)...).CombinedOutput()
	must.NoError(t, err, must.Sprintf("operator keygen: %s", out))
	return strings.TrimSpace(string(out))
}

// errNotYet marks a condition a wait tries again.
var errNotYet = errors.New("not yet")

// leader asks every server which server leads, and returns it when all
// answer and agree.
func (c *cluster) leader() (*member, error) {
	var addrs []string
	for _, s := range c.servers {
		if s.agent.Exited() {
			return nil, fmt.Errorf("server %s exited", s.name)
		}
		addr, err := s.quick.Status().Leader()
		if err != nil {
			return nil, fmt.Errorf("%w: server %s: %v", errNotYet, s.name, err)
		}
		addrs = append(addrs, addr)
	}
	for _, a := range addrs {
		if a == "" || a != addrs[0] {
			return nil, fmt.Errorf("%w: the servers name leaders %q", errNotYet, addrs)
		}
	}
	for _, s := range c.servers {
		if s.rpcAddr() == addrs[0] {
			return s, nil
		}
	}
	return nil, fmt.Errorf("the leader %s is none of the servers", addrs[0])
}

// waitLeader waits until every server names the same leader, and
// returns it.
func (c *cluster) waitLeader(t *testing.T) *member {
	t.Helper()
	var leader *member
	waitfor.NoError(t, "the servers to agree on a leader", func() error {
		var err error
		leader, err = c.leader()
		return err
	}, wait.Timeout(readyTimeout), wait.Gap(100*time.Millisecond))
	return leader
}

// waitClientReady waits until the servers see the client's node ready.
func (c *cluster) waitClientReady(t *testing.T) {
	t.Helper()
	waitfor.NoError(t, "the client's node to be ready", func() error {
		if c.client.agent.Exited() {
			t.Fatalf("client agent exited")
		}
		nodes, _, err := c.servers[0].api.Nodes().List(nil)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			if n.Name == c.client.name && n.Status == api.NodeStatusReady {
				return nil
			}
		}
		return fmt.Errorf("%w: nodes %d, none ready named %s", errNotYet, len(nodes), c.client.name)
	}, wait.Timeout(readyTimeout), wait.Gap(100*time.Millisecond))
}

// others are the agents other than m: every server but m, and the client.
func (c *cluster) others(m *member) []*member {
	var out []*member
	for _, o := range append(append([]*member(nil), c.servers...), c.client) {
		if o != m {
			out = append(out, o)
		}
	}
	return out
}
