package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/e2e/agentproc"
)

// TestCluster runs a server and two client agents, each a process with
// its own data dir, address and ports, and drives them through the
// server's API and the CLI. The steps share the cluster and run in order:
// the last one leaves a client dead.
func TestCluster(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 2)

	t.Run("sysbatch example runs once on every node", func(t *testing.T) {
		c.with(t).sysbatchExample()
	})
	t.Run("restarted client re-attaches its allocation", func(t *testing.T) {
		c.with(t).clientRestart()
	})
	t.Run("killed client's allocation is lost and replaced", func(t *testing.T) {
		c.with(t).clientLost()
	})
}

// sysbatchExample runs examples/sysbatch.hcl: one allocation on each
// client node, each bounded by its own deadline, each printing the name
// of its node, which `alloc logs` fetches from that node's own HTTP API.
func (s *testCluster) sysbatchExample() {
	t := s.t
	s.server.mustCLI("job run", "-detach", examplePath(t, "sysbatch.hcl"))

	allocs := s.server.waitAllocs("sysbatch", len(s.clients), "complete", time.Minute,
		clientStatus(api.AllocClientStatusComplete))
	nodes := map[string]bool{}
	for _, alloc := range allocs {
		nodes[alloc.NodeName] = true
		deadlineOf(t, alloc, 30*time.Second)
		must.NotEq(t, exceededDescription, alloc.ClientDescription)
		ts := task(t, alloc, "report")
		must.Nil(t, event(ts, "Killing"), must.Sprintf("events: %v", events(ts)))
		terminated := event(ts, "Terminated")
		must.NotNil(t, terminated, must.Sprintf("events: %v", events(ts)))
		must.Eq(t, 0, terminated.ExitCode)

		logs := s.server.mustCLI("alloc logs", alloc.ID, "report")
		must.StrContains(t, logs, "running on "+alloc.NodeName)
	}
	for _, cl := range s.clients {
		must.True(t, nodes[cl.name], must.Sprintf("no allocation on %s; on %v", cl.name, nodes))
	}
	s.server.waitJobStatus("sysbatch", "dead", 10*time.Second)
}

// restartJob runs long enough for its client to be stopped and started
// again while the task runs, and short enough to end on its own soon
// after.
var restartJob = sleepJob("reattach", "batch", "", 10)

// clientRestart stops the client running an allocation with SIGTERM and
// starts it again on the same data dir: the node comes back as itself,
// the task, which ran on meanwhile, is re-attached (one Started event, the
// same allocation) and completes.
func (s *testCluster) clientRestart() {
	t := s.t
	s.server.mustCLI("job run", "-detach", writeFile(t, t.TempDir(), "reattach.hcl", restartJob))
	alloc := s.server.waitRunning("reattach")
	cl := s.client(alloc.NodeName)
	nodeBefore := s.waitNodeStatus(cl, api.NodeStatusReady, time.Second)

	cl.terminate(t)
	must.SliceNotEmpty(t, agentproc.Matching(filepath.Join(cl.dir, "data", "alloc", alloc.ID)),
		must.Sprint("the task must live on while its agent is stopped"))

	s.startClient(cl)
	self := s.waitClientHeartbeat(cl)
	must.Eq(t, nodeBefore.ID, self["node_id"], must.Sprint("the restarted agent must be the same node"))
	s.waitNodeStatus(cl, api.NodeStatusReady, 30*time.Second)

	// Re-attached while it still runs: not restarted, not replaced.
	now, _, err := s.server.api.Allocations().Info(alloc.ID, nil)
	must.NoError(t, err)
	must.Eq(t, api.TaskStateRunning, task(t, now, "t").State,
		must.Sprintf("the task ended before the agent was back (events %v): lengthen the job", events(task(t, now, "t"))))

	done := s.server.waitAlloc(alloc.ID, "complete", 40*time.Second, clientStatus(api.AllocClientStatusComplete))
	ts := task(t, done, "t")
	must.Eq(t, 1, countEvents(ts, "Started"), must.Sprintf("events: %v", events(ts)))
	must.Eq(t, 0, ts.Restarts)
	terminated := event(ts, "Terminated")
	must.NotNil(t, terminated, must.Sprintf("events: %v", events(ts)))
	must.Eq(t, 0, terminated.ExitCode)
	s.server.mustBeOnlyAlloc("reattach", alloc.ID)
	s.server.waitJobStatus("reattach", "dead", 10*time.Second)
}

// waitClientHeartbeat waits until cl's agent reports that it has reached
// the servers, and returns its client stats.
func (s *testCluster) waitClientHeartbeat(cl *clusterClient) map[string]string {
	var stats map[string]string
	c := cl.agent.API()
	s.server.waitFor(fmt.Sprintf("client %s to heartbeat", cl.name), readyTimeout, func() error {
		if cl.agent.Exited() {
			s.t.Fatalf("client agent %s exited", cl.name)
		}
		self, err := c.Agent().Self()
		if err != nil {
			return err
		}
		stats = self.Stats["client"]
		if stats["last_heartbeat"] == "" || stats["last_heartbeat"] == "never" {
			return fmt.Errorf("%w: no heartbeat yet", errNotYet)
		}
		return nil
	})
	return stats
}

// clientLost SIGKILLs the client running an allocation and does not
// start it again: once its heartbeat TTL (and the servers' grace) has
// passed, the node is down, the allocation lost, and a replacement runs
// on the other client.
func (s *testCluster) clientLost() {
	t := s.t
	s.server.mustCLI("job run", "-detach", writeFile(t, t.TempDir(), "lost.hcl", sleepJob("lost", "batch", "", 1000)))
	alloc := s.server.waitRunning("lost")
	victim := s.client(alloc.NodeName)
	other := s.otherClient(victim)
	otherNode := s.waitNodeStatus(other, api.NodeStatusReady, time.Second)

	victim.agent.Kill()
	killedAt := time.Now()
	// The cluster's servers give a TTL of at least 4 s and mark a node
	// down 3 s of grace after it: some 7-9 s.
	s.waitNodeStatus(victim, api.NodeStatusDown, 90*time.Second)
	t.Logf("node %s down %s after its agent was killed", victim.name, time.Since(killedAt).Round(time.Millisecond))
	nodes := s.server.mustCLI("node status")
	must.RegexMatch(t, regexp.MustCompile(`(?m)\s`+victim.name+`\s.*\sdown$`), nodes)
	must.RegexMatch(t, regexp.MustCompile(`(?m)\s`+other.name+`\s.*\sready$`), nodes)

	lost := s.server.waitAlloc(alloc.ID, "lost", 30*time.Second, clientStatus(api.AllocClientStatusLost))
	must.Eq(t, api.AllocDesiredStatusStop, lost.DesiredStatus)

	var replacement *api.AllocationListStub
	s.server.waitFor("a replacement of "+alloc.ID+" running on "+other.name, 60*time.Second, func() error {
		stubs, err := s.server.jobAllocs("lost")
		if err != nil {
			return err
		}
		for _, stub := range stubs {
			if stub.ID != alloc.ID && stub.ClientStatus == api.AllocClientStatusRunning {
				replacement = stub
				return nil
			}
		}
		return fmt.Errorf("%w: allocations %s", errNotYet, allocIDs(stubs))
	})
	must.Eq(t, otherNode.ID, replacement.NodeID)
	full, _, err := s.server.api.Allocations().Info(replacement.ID, nil)
	must.NoError(t, err)
	must.Eq(t, alloc.ID, full.PreviousAllocation)
}

// countEvents counts the task's events of type typ.
func countEvents(ts *api.TaskState, typ string) int {
	n := 0
	for _, ev := range ts.Events {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// examplePath is the absolute path of a file in the repository's
// examples/ directory.
func examplePath(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "examples", name))
	must.NoError(t, err)
	return path
}
