package agent

import (
	"net"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/structs"
)

// freePort returns a loopback TCP port that is free now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestClientRestart_ReattachesRunningTask stops an agent that runs a
// raw_exec task, starts a new one on the same data dir while the task still
// runs, and checks that the task was re-attached rather than started again
// and that its exit code reached the server.
func TestClientRestart_ReattachesRunningTask(t *testing.T) {
	dataDir := t.TempDir()
	httpPort, rpcPort := freePort(t), freePort(t)
	persistent := func(cfg *config.Config) {
		cfg.DevMode = false
		cfg.DataDir = dataDir
		cfg.Ports = config.Ports{HTTP: httpPort, RPC: rpcPort}
	}

	first := testClientAgent(t, persistent)
	job := rawExecJob("restart", map[string]string{"work": "sleep 3; exit 7"})
	alloc := placeAlloc(t, first.Server(), job, first.Client().NodeID())
	running := waitAlloc(t, first.Server(), alloc.ID, "running", clientStatusIs(structs.AllocClientStatusRunning))
	startedAt := running.TaskStates["work"].StartedAt
	must.False(t, startedAt.IsZero())
	nodeID := first.Client().NodeID()

	// A client with a state dir leaves its tasks running when it stops.
	must.NoError(t, first.Shutdown())

	second := testClientAgent(t, persistent)
	must.Eq(t, nodeID, second.Client().NodeID())
	done := waitAlloc(t, second.Server(), alloc.ID, "failed with the task's exit code",
		clientStatusIs(structs.AllocClientStatusFailed))

	ts := done.TaskStates["work"]
	must.Eq(t, structs.TaskStateDead, ts.State)
	must.True(t, ts.Failed)
	must.Eq(t, 1, countEvents(ts, structs.TaskStarted), must.Sprintf("events: %v", eventTypes(ts)))
	must.True(t, startedAt.Equal(ts.StartedAt), must.Sprintf("task started again at %s, first at %s", ts.StartedAt, startedAt))
	var exitCode string
	for _, ev := range ts.Events {
		if ev.Type == structs.TaskTerminated {
			exitCode = ev.Details["exit_code"]
		}
	}
	must.Eq(t, "7", exitCode, must.Sprintf("events: %v", eventTypes(ts)))
}
