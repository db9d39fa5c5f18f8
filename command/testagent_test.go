package command

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
	agentconfig "github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// testEncryptKey is the encrypt key of test servers that form a cluster.
const testEncryptKey = "ZHJvdmVyIHRlc3QgY2x1c3RlciBrZXksIDMyIGJ5dGU="

// testAgent starts a dev-mode agent in this process, server only, on
// 127.0.0.1 with free ports, waits until its server leads, and stops it
// when the test ends. It returns the agent and its HTTP address for
// -address.
func testAgent(t *testing.T) (*agent.Agent, string) {
	t.Helper()
	return testAgentWith(t, func(*agentconfig.Config) {})
}

// testAgentWith is testAgent with the configuration changed by change
// first. The address it returns is https when change turned tls.http on.
func testAgentWith(t *testing.T, change func(*agentconfig.Config)) (*agent.Agent, string) {
	t.Helper()
	cfg := agentconfig.DevConfig()
	cfg.Ports = agentconfig.Ports{HTTP: 0, RPC: 0}
	cfg.NodeName = "cli-test"
	cfg.Client.Enabled = false
	cfg.Telemetry.CollectionInterval = 100 * time.Millisecond
	change(cfg)
	logger := hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Warn, Output: testLogWriter{t}})
	a, err := agent.NewAgent(cfg, logger)
	must.NoError(t, err)
	t.Cleanup(func() { must.NoError(t, a.Shutdown()) })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	must.NoError(t, a.Server().WaitForLeader(ctx))
	if cfg.TLS.HTTP {
		return a, "https://" + a.HTTPAddr()
	}
	return a, "http://" + a.HTTPAddr()
}

// testLogWriter sends the agent's log lines to the test's log.
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// registerTestNode registers a ready node with 4000 MHz and 8 GiB and a
// healthy raw_exec driver through the server, as a client would. Unless it
// is eligible the scheduler leaves it alone, so that only the allocations
// a test places itself are on it.
func registerTestNode(t *testing.T, a *agent.Agent, id, name, eligibility string) {
	t.Helper()
	node := &structs.Node{
		ID:                    id,
		Datacenter:            "dc1",
		Name:                  name,
		HTTPAddr:              "127.0.0.1:4646",
		NodePool:              "default",
		Attributes:            map[string]string{"kernel.name": "linux", structs.NodeAttrVersion: "0.1.0"},
		Meta:                  map[string]string{"rack": "r1"},
		SchedulingEligibility: eligibility,
		Status:                structs.NodeStatusReady,
		Drivers: map[string]*structs.DriverInfo{
			"raw_exec": {Detected: true, Healthy: true},
			"docker":   {Detected: false},
		},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: 4000, TotalCpuCores: 4},
			Memory: structs.NodeMemoryResources{MemoryMB: 8192},
			Disk:   structs.NodeDiskResources{DiskMB: 100000},
		},
	}
	_, err := a.Server().NodeRegister(context.Background(), node)
	must.NoError(t, err)
}

// placeTestAlloc writes a running allocation of the stored job onto a node,
// as the scheduler would place it.
func placeTestAlloc(t *testing.T, a *agent.Agent, allocID, jobID, evalID, nodeID string) {
	t.Helper()
	job, err := a.Server().State().JobByID(nil, structs.DefaultNamespace, jobID)
	must.NoError(t, err)
	must.NotNil(t, job)
	alloc := &structs.Allocation{
		ID:            allocID,
		Namespace:     job.Namespace,
		EvalID:        evalID,
		Name:          jobID + "." + job.TaskGroups[0].Name + "[0]",
		NodeID:        nodeID,
		JobID:         jobID,
		Job:           job,
		TaskGroup:     job.TaskGroups[0].Name,
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusRunning,
		Resources:     &structs.Resources{CPU: 200, MemoryMB: 300, DiskMB: 150},
		CreateTime:    time.Now().UnixNano(),
		ModifyTime:    time.Now().UnixNano(),
	}
	_, err = a.Server().Apply(context.Background(), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
}

// runDetached submits the jobspec at path with -detach and returns the ID
// of its evaluation.
func runDetached(t *testing.T, addr, path string) string {
	t.Helper()
	code, out, errOut := runCLI(t, "", "job", "run", "-address", addr, "-detach", path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Job registration successful")
	m := regexp.MustCompile(`Evaluation ID: ([0-9a-f-]{36})`).FindStringSubmatch(out)
	must.Len(t, 2, m, must.Sprintf("no evaluation ID in %q", out))
	return m[1]
}

// writeJob writes a minimal batch job with the given ID, and extra
// job-level HCL, and returns its path.
func writeJob(t *testing.T, id, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), id+".hcl")
	spec := `job "` + id + `" {
  type = "batch"
  ` + extra + `
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`
	must.NoError(t, os.WriteFile(path, []byte(spec), 0o644))
	return path
}

// freeAddress returns the address of a port on 127.0.0.1 that nothing
// listens on.
func freeAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	addr := ln.Addr().String()
	must.NoError(t, ln.Close())
	return "http://" + addr
}

// IDs of the nodes and allocation the tests write.
const (
	testNodeID  = "f5a9b8c7-1111-4222-8333-444455556666"
	testNodeID2 = "f5a9c0d1-1111-4222-8333-444455556666"
	testAllocID = "0a1b2c3d-1111-4222-8333-444455556666"
)

// cliTimeout bounds a command that waits on the server, such as one that
// monitors an evaluation, so that a scheduler that never finishes fails
// the test instead of hanging it. It is generous for a loaded machine.
const cliTimeout = 60 * time.Second

// runCLIWithin is runCLI for a command that waits on the server: the test
// fails if the command has not finished within cliTimeout.
func runCLIWithin(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.code, r.out, r.errOut = runCLI(t, stdin, args...)
		done <- r
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errOut
	case <-time.After(cliTimeout):
		t.Fatalf("%v did not finish within %s", args, cliTimeout)
		return 0, "", ""
	}
}
