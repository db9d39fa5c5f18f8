package nomad

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/internal/fixture"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// leaderWait bounds how long tests wait for raft: generous, for a loaded
// two-core machine.
const leaderWait = 10 * time.Second

// testLogWriter sends log lines to the test log until the test ends.
type testLogWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// testLogger logs at warn level, or at DROVER_TEST_LOG's level when set.
func testLogger(t testing.TB, name string) hclog.Logger {
	w := &testLogWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	level := hclog.Warn
	if l := os.Getenv("DROVER_TEST_LOG"); l != "" {
		level = hclog.LevelFromString(l)
	}
	return hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: name, Output: w, Level: level})
}

// logCount counts the log lines, at every level, whose message starts with
// prefix: the trace a server leaves of a decision that changes nothing else
// a test can see (a launch skipped).
type logCount struct {
	prefix string
	n      atomic.Int64
}

func (c *logCount) Accept(_ string, _ hclog.Level, msg string, _ ...any) {
	if strings.HasPrefix(msg, c.prefix) {
		c.n.Add(1)
	}
}

// countLogs counts the lines of cfg's logger (a testLogger) whose message
// starts with prefix.
func countLogs(cfg *Config, prefix string) *logCount {
	c := &logCount{prefix: prefix}
	cfg.Logger.(hclog.InterceptLogger).RegisterSink(c)
	return c
}

// testClusterKey is every test server's encrypt key, so that the servers
// a test starts can form a cluster.
var testClusterKey = []byte("drover test cluster key, 32 byte")

// testConfig is a dev-mode server on a free 127.0.0.1 port with short raft
// timeouts and the test cluster key.
func testConfig(t testing.TB, name string) *Config {
	cfg := DefaultConfig()
	cfg.ClusterKey = testClusterKey
	cfg.NodeName = name
	cfg.DevMode = true
	cfg.RPCAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 0}
	cfg.HTTPAddr = "127.0.0.1:4646"
	cfg.Logger = testLogger(t, name)
	rc := raft.DefaultConfig()
	rc.HeartbeatTimeout = 500 * time.Millisecond
	rc.ElectionTimeout = 500 * time.Millisecond
	rc.LeaderLeaseTimeout = 500 * time.Millisecond
	rc.CommitTimeout = 10 * time.Millisecond
	cfg.RaftConfig = rc
	cfg.JoinInterval = 100 * time.Millisecond
	cfg.MemberProbeInterval = 500 * time.Millisecond
	cfg.RPCDialTimeout = time.Second
	cfg.ForwardTimeout = leaderWait
	return cfg
}

// unscheduledConfig is testConfig for a server that runs no scheduling
// workers: evaluations stay pending in its broker.
func unscheduledConfig(t testing.TB, name string) *Config {
	cfg := testConfig(t, name)
	cfg.NumSchedulers = new(0)
	return cfg
}

// startServer starts a server and shuts it down when the test ends.
func startServer(t testing.TB, cfg *Config) *Server {
	t.Helper()
	s, err := NewServer(cfg)
	must.NoError(t, err)
	t.Cleanup(func() { _ = s.Shutdown() })
	return s
}

// serverPool is a connection pool that proves the test cluster key, as
// the pool of a test server does.
func serverPool(t testing.TB) *nomadrpc.Pool {
	p := nomadrpc.NewPool(time.Second, nomadrpc.NewDialer(nomadrpc.Credentials{Role: nomadrpc.RoleServer, Secret: testClusterKey}, nomadrpc.NewInstanceID()))
	t.Cleanup(p.Close)
	return p
}

// clientAgentRPC is an RPC client of a client agent that holds the test
// cluster's registration secret.
func clientAgentRPC(t testing.TB) *RPCClient {
	c := NewRPCClient(RPCClientConfig{DialTimeout: time.Second, RegistrationSecret: nomadrpc.RegistrationSecret(testClusterKey)})
	t.Cleanup(c.Close)
	return c
}

// waitForLeader waits until s knows a leader.
func waitForLeader(t testing.TB, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), leaderWait)
	defer cancel()
	must.NoError(t, s.WaitForLeader(ctx))
}

// testCtx is a context that ends with the test or after leaderWait, for
// a caller that may do anything (a management token), as the HTTP API
// hands in the caller of each write it makes.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), leaderWait)
	t.Cleanup(cancel)
	return auth.WithCaller(ctx, acl.Management())
}

// testJob, testPeriodicJob, testEval, testNode and testAlloc are the
// shared fixtures (see package fixture).
var (
	testJob         = fixture.Job
	testPeriodicJob = fixture.PeriodicJob
	testEval        = fixture.Eval
	testNode        = fixture.Node
	testAlloc       = fixture.Alloc
)

// mustRegister registers a job, trying again while leadership changes hands.
// A loaded machine can stall a leader long enough for it to step down in
// the middle of a write; the cluster must stay writable, which is what the
// callers check, not that no election ever happens.
func mustRegister(t testing.TB, s *Server, job *structs.Job) *JobRegisterResponse {
	t.Helper()
	var resp *JobRegisterResponse
	waitfor.NoError(t, fmt.Sprintf("job %q registered through %s", job.ID, s.config.NodeName), func() error {
		var err error
		resp, err = s.RegisterJob(testCtx(t), &JobRegisterRequest{Job: job.Copy()})
		if err != nil && !errors.Is(err, raft.ErrLeadershipLost) && !errors.Is(err, ErrMayStillApply) {
			t.Fatalf("register job %q through %s: %v", job.ID, s.config.NodeName, err)
		}
		return err
	})
	return resp
}
