package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestClientEndpoints_LogsAndFiles(t *testing.T) {
	a := testClientAgent(t)
	job := rawExecJob("files", map[string]string{"out": "echo hello; echo oops >&2"})
	alloc := placeAlloc(t, a.Server(), job, a.Client().NodeID())
	done := waitAlloc(t, a.Server(), alloc.ID, "complete", clientStatusIs(structs.AllocClientStatusComplete))
	must.Eq(t, structs.TaskStateDead, done.TaskStates["out"].State)

	base := "/v1/client/fs/logs/" + alloc.ID + "?task=out"
	cases := []struct {
		name  string
		query string
		want  string
	}{
		{"stdout", "&type=stdout&plain=true", "hello\n"},
		{"stderr", "&type=stderr&plain=true", "oops\n"},
		{"from the end", "&type=stdout&plain=true&origin=end&offset=3", "lo\n"},
		{"from an offset", "&type=stdout&plain=true&origin=start&offset=2", "llo\n"},
		{"past the end", "&type=stdout&plain=true&offset=100", ""},
		{"follow ends with the task", "&type=stdout&plain=true&follow=true", "hello\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, a, http.MethodGet, base+tc.query, nil)
			must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
			must.Eq(t, tc.want, string(resp.body))
		})
	}

	t.Run("framed", func(t *testing.T) {
		resp := do(t, a, http.MethodGet, base+"&type=stdout", nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.Eq(t, "application/json", resp.header.Get("Content-Type"))
		var frame logFrame
		must.NoError(t, json.NewDecoder(strings.NewReader(string(resp.body))).Decode(&frame))
		must.Eq(t, logFrame{Offset: 6, Data: []byte("hello\n"), File: "alloc/logs/out.stdout.0"}, frame)
	})

	t.Run("files", func(t *testing.T) {
		var root []allocFileInfo
		get(t, a, "/v1/client/fs/ls/"+alloc.ID+"?path=/", &root)
		names := map[string]bool{}
		for _, f := range root {
			names[f.Name] = f.IsDir
		}
		must.Eq(t, map[string]bool{"alloc": true, "out": true}, names)

		var logs []allocFileInfo
		get(t, a, "/v1/client/fs/ls/"+alloc.ID+"?path=alloc/logs", &logs)
		var stdout *allocFileInfo
		for i := range logs {
			if logs[i].Name == "out.stdout.0" {
				stdout = &logs[i]
			}
		}
		must.NotNil(t, stdout)
		must.Eq(t, int64(6), stdout.Size)
		must.False(t, stdout.IsDir)

		var st allocFileInfo
		get(t, a, "/v1/client/fs/stat/"+alloc.ID+"?path=/alloc/logs/out.stderr.0", &st)
		must.Eq(t, int64(5), st.Size)

		resp := do(t, a, http.MethodGet, "/v1/client/fs/cat/"+alloc.ID+"?path=alloc/logs/out.stdout.0", nil)
		must.Eq(t, http.StatusOK, resp.code)
		must.Eq(t, "hello\n", string(resp.body))
	})

	errCases := []struct {
		name string
		path string
		code int
		want string
	}{
		{"traversal", "/v1/client/fs/cat/" + alloc.ID + "?path=../../../etc/passwd", http.StatusBadRequest, "leaves the allocation directory"},
		{"traversal in ls", "/v1/client/fs/ls/" + alloc.ID + "?path=alloc/../../x", http.StatusBadRequest, "leaves the allocation directory"},
		{"cat a directory", "/v1/client/fs/cat/" + alloc.ID + "?path=alloc", http.StatusBadRequest, "not a file"},
		{"missing file", "/v1/client/fs/cat/" + alloc.ID + "?path=nope", http.StatusNotFound, "not found"},
		{"logs without task", "/v1/client/fs/logs/" + alloc.ID + "?type=stdout", http.StatusBadRequest, "missing task"},
		{"logs of unknown task", "/v1/client/fs/logs/" + alloc.ID + "?task=nope&type=stdout", http.StatusNotFound, `task "nope" not found`},
		{"bad log type", base + "&type=stdlog", http.StatusBadRequest, "invalid log type"},
		{"bad origin", base + "&type=stdout&origin=middle", http.StatusBadRequest, "invalid origin"},
		{"bad offset", base + "&type=stdout&offset=-1", http.StatusBadRequest, "invalid offset"},
		{"unknown alloc", "/v1/client/fs/logs/" + structs.GenerateUUID() + "?task=out&type=stdout", http.StatusNotFound, "alloc not found"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, a, http.MethodGet, tc.path, nil)
			must.Eq(t, tc.code, resp.code, must.Sprint(resp))
			must.StrContains(t, string(resp.body), tc.want)
		})
	}

	var checks map[string]any
	get(t, a, "/v1/client/allocation/"+alloc.ID+"/checks", &checks)
	must.MapEmpty(t, checks)
}

func TestClientEndpoints_SignalRestartStatsAndFollow(t *testing.T) {
	a := testClientAgent(t)
	script := `trap 'echo got-usr1' USR1; echo ready; while true; do sleep 0.1; done`
	job := rawExecJob("signals", map[string]string{"loop": script})
	alloc := placeAlloc(t, a.Server(), job, a.Client().NodeID())
	waitAlloc(t, a.Server(), alloc.ID, "running", clientStatusIs(structs.AllocClientStatusRunning))

	// Follow stdout while the task runs.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		"http://"+a.HTTPAddr()+"/v1/client/fs/logs/"+alloc.ID+"?task=loop&type=stdout&plain=true&follow=true", nil)
	must.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	must.NoError(t, err)
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	must.True(t, lines.Scan())
	must.Eq(t, "ready", lines.Text())

	var stats client.AllocResourceUsage
	get(t, a, "/v1/client/allocation/"+alloc.ID+"/stats", &stats)
	loop := stats.Tasks["loop"]
	must.NotNil(t, loop)
	must.Positive(t, loop.ResourceUsage.MemoryStats.RSS)
	if len(loop.Pids) == 0 {
		// Read from the task's cgroup, where the machine's account for
		// memory and CPU: the figures of the whole cgroup.
		must.SliceContains(t, loop.ResourceUsage.MemoryStats.Measured, "Usage")
		must.Positive(t, loop.ResourceUsage.MemoryStats.Usage)
	} else {
		must.Eq(t, []string{"RSS"}, loop.ResourceUsage.MemoryStats.Measured)
	}
	must.Positive(t, stats.ResourceUsage.MemoryStats.RSS)

	r := do(t, a, http.MethodPut, "/v1/client/allocation/"+alloc.ID+"/signal", map[string]any{"Task": "loop", "Signal": "SIGUSR1"})
	must.Eq(t, http.StatusOK, r.code, must.Sprint(r))
	must.True(t, lines.Scan())
	must.Eq(t, "got-usr1", lines.Text())

	for _, tc := range []struct {
		name string
		body map[string]any
		code int
		want string
	}{
		{"bad signal", map[string]any{"Task": "loop", "Signal": "SIGNOPE"}, http.StatusBadRequest, "unknown signal"},
		{"unknown task", map[string]any{"Task": "nope", "Signal": "SIGHUP"}, http.StatusNotFound, `task "nope" not found`},
	} {
		r := do(t, a, http.MethodPut, "/v1/client/allocation/"+alloc.ID+"/signal", tc.body)
		must.Eq(t, tc.code, r.code, must.Sprint(r))
		must.StrContains(t, string(r.body), tc.want)
	}

	r = do(t, a, http.MethodPut, "/v1/client/allocation/"+alloc.ID+"/restart", map[string]any{"TaskName": "loop"})
	must.Eq(t, http.StatusOK, r.code, must.Sprint(r))
	restarted := waitAlloc(t, a.Server(), alloc.ID, "task restarted", func(al *structs.Allocation) bool {
		ts := al.TaskStates["loop"]
		return ts != nil && ts.Restarts == 1 && ts.State == structs.TaskStateRunning
	})
	must.Eq(t, 2, countEvents(restarted.TaskStates["loop"], structs.TaskStarted))
	must.Eq(t, 1, countEvents(restarted.TaskStates["loop"], structs.TaskRestartSignal))

	r = do(t, a, http.MethodPut, "/v1/client/allocation/"+alloc.ID+"/restart", map[string]any{"TaskName": "loop", "AllTasks": true})
	must.Eq(t, http.StatusBadRequest, r.code, must.Sprint(r))
	r = do(t, a, http.MethodPut, "/v1/client/allocation/"+alloc.ID+"/restart", map[string]any{"TaskName": "nope"})
	must.Eq(t, http.StatusNotFound, r.code, must.Sprint(r))

	// Stopping the allocation ends the followed stream.
	_, err = a.Server().AllocStop(context.Background(), alloc.ID)
	must.NoError(t, err)
	waitAlloc(t, a.Server(), alloc.ID, "complete after stop", clientStatusIs(structs.AllocClientStatusComplete))
	rest, err := io.ReadAll(resp.Body)
	must.NoError(t, err, must.Sprint("the follow stream should end once the task is dead"))
	t.Logf("rest of the stream: %q", rest)
}

func TestClientEndpoints_ForwardedToTheNodeOverRPC(t *testing.T) {
	srv := testAgent(t, func(cfg *config.Config) { cfg.Server.EncryptKey = testEncryptKey })
	c := testClientAgent(t, func(cfg *config.Config) {
		cfg.NodeName = "remote-client"
		cfg.Server.Enabled = false
		cfg.Client.RegistrationSecret = testRegistrationSecret
		// A dead server first: the client fails over to the live one.
		cfg.Client.Servers = []string{"127.0.0.1:1", srv.Server().RPCAddr().String()}
	})
	nodeID := c.Client().NodeID()
	node, err := srv.Server().State().NodeByID(nil, nodeID)
	must.NoError(t, err)
	must.NotNil(t, node)
	must.Eq(t, c.HTTPAddr(), node.HTTPAddr)
	must.Eq(t, "1", node.Attributes["driver.raw_exec"])

	job := rawExecJob("remote", map[string]string{"out": "echo from-the-node"})
	alloc := placeAlloc(t, srv.Server(), job, nodeID)
	waitAlloc(t, srv.Server(), alloc.ID, "complete", clientStatusIs(structs.AllocClientStatusComplete))

	resp := do(t, srv, http.MethodGet, "/v1/client/fs/logs/"+alloc.ID+"?task=out&type=stdout&plain=true", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, "from-the-node\n", string(resp.body))

	var stats client.AllocResourceUsage
	get(t, srv, "/v1/client/allocation/"+alloc.ID+"/stats", &stats)
	must.MapContainsKey(t, stats.Tasks, "out")

	// The client agent itself knows no allocation it does not run.
	resp = do(t, c, http.MethodGet, "/v1/client/fs/logs/"+structs.GenerateUUID()+"?task=out&type=stdout", nil)
	must.Eq(t, http.StatusNotFound, resp.code)

	// A stop on the server reaches the client through its blocking query.
	stopJob := rawExecJob("remote-stop", map[string]string{"sleep": "sleep 600"})
	long := placeAlloc(t, srv.Server(), stopJob, nodeID)
	waitAlloc(t, srv.Server(), long.ID, "running", clientStatusIs(structs.AllocClientStatusRunning))
	_, err = srv.Server().AllocStop(context.Background(), long.ID)
	must.NoError(t, err)
	waitAlloc(t, srv.Server(), long.ID, "complete after stop", clientStatusIs(structs.AllocClientStatusComplete))

	stats2 := c.Client().Stats()
	must.StrContains(t, stats2["known_servers"], srv.Server().RPCAddr().String())
	waitfor.True(t, "a heartbeat", func() bool { return c.Client().Stats()["last_heartbeat"] != "never" })
}
