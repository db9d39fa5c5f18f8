package e2e

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/e2e/agentproc"
)

// stopServerConfig is one of three server agents that form a cluster
// together.
const stopServerConfig = `
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
}
`

// startServers starts three server agents on 127.0.0.1 that form one
// cluster, and waits until each of them names the same leader.
func startServers(t *testing.T) []*testAgent {
	t.Helper()
	skipShort(t)
	key := drover(t, "operator", "keygen")
	rpcPorts := make([]int, 3)
	var join []string
	for i := range rpcPorts {
		rpcPorts[i] = freeLoopbackPort(t, "127.0.0.1")
		join = append(join, strconv.Quote(net.JoinHostPort("127.0.0.1", strconv.Itoa(rpcPorts[i]))))
	}
	servers := make([]*testAgent, 3)
	for i := range servers {
		name := fmt.Sprintf("server-%d", i)
		dir := mkdir(t, filepath.Join(t.TempDir(), name))
		config := writeFile(t, dir, "agent.hcl",
			fmt.Sprintf(stopServerConfig, name, filepath.Join(dir, "data"), key, strings.Join(join, ", ")))
		a := agentproc.Start(t, agentproc.Options{
			Dir:      dir,
			HTTPPort: freeLoopbackPort(t, "127.0.0.1"),
			RPCPort:  rpcPorts[i],
			Args:     []string{"-config", config},
		})
		servers[i] = &testAgent{Agent: a, t: t, api: a.API(), dir: dir}
	}
	return servers
}

// leaderOf waits until every server names the same leader, and returns it.
func leaderOf(t *testing.T, servers []*testAgent) *testAgent {
	t.Helper()
	var leader *testAgent
	servers[0].waitFor("one leader every server names", readyTimeout, func() error {
		leader = nil
		var named string
		for _, s := range servers {
			addr, err := s.api.Status().Leader()
			if err != nil {
				return err
			}
			if addr == "" || (named != "" && addr != named) {
				return fmt.Errorf("%w: leaders %q and %q", errNotYet, named, addr)
			}
			named = addr
		}
		for _, s := range servers {
			if named == net.JoinHostPort("127.0.0.1", strconv.Itoa(s.RPCPort)) {
				leader = s
			}
		}
		if leader == nil {
			return fmt.Errorf("no server listens at the leader's address %s", named)
		}
		return nil
	})
	return leader
}

// TestServers_WriteThroughAFollowerWhileTheLeaderIsStopped stops the
// leader's process (SIGSTOP: its connections stay open, nothing answers)
// and registers a job through a follower. The follower must not wait for
// the stopped leader until the write's timeout: once raft elects another
// leader it answers, that the write may still apply (the stopped leader
// may have read it), and the next write goes to the new leader.
func TestServers_WriteThroughAFollowerWhileTheLeaderIsStopped(t *testing.T) {
	servers := startServers(t)
	leader := leaderOf(t, servers)
	var follower *testAgent
	for _, s := range servers {
		if s != leader {
			follower = s
			break
		}
	}
	// A write through the follower first, so that it holds a connection
	// to the leader, as a busy cluster's followers do.
	follower.register(follower.parseJob(`job "before" { type = "batch" group "g" { task "t" { driver = "raw_exec" config { command = "/bin/true" } } } }`))

	must.NoError(t, syscall.Kill(leader.Pid(), syscall.SIGSTOP))
	t.Cleanup(func() { _ = syscall.Kill(leader.Pid(), syscall.SIGCONT) })

	job := follower.parseJob(`job "during" { type = "batch" group "g" { task "t" { driver = "raw_exec" config { command = "/bin/true" } } } }`)
	start := time.Now()
	_, _, err := follower.api.Jobs().Register(job, nil)
	took := time.Since(start)
	t.Logf("the write through the follower was answered %s after the leader stopped: %v", took.Round(time.Millisecond), err)
	var resp api.UnexpectedResponseError
	if err != nil && (!errors.As(err, &resp) || resp.StatusCode != http.StatusGatewayTimeout) {
		t.Fatalf("register through the follower after %s: %v, want success or 504 (may still apply)\nfollower's log:\n%s", took, err, follower.LogTail())
	}
	// The write's 30 s timeout would be the answer without following the
	// leader change; raft elects another leader in a few seconds.
	must.Less(t, 20*time.Second, took, must.Sprintf("the follower waited for the stopped leader\nfollower's log:\n%s", follower.LogTail()))

	after := follower.parseJob(`job "after" { type = "batch" group "g" { task "t" { driver = "raw_exec" config { command = "/bin/true" } } } }`)
	_, _, err = follower.api.Jobs().Register(after, nil)
	must.NoError(t, err, must.Sprintf("register through the follower once another leader was elected\nfollower's log:\n%s", follower.LogTail()))
	got, _, err := follower.api.Jobs().Info("after", &api.QueryOptions{})
	must.NoError(t, err)
	must.Eq(t, "after", *got.ID)
}
